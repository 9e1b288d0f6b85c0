#include <mosquitto.h>
