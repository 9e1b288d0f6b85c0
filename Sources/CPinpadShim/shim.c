#include "CPinpadShim.h"
