// libdrm's KMS API (pkg-config libdrm, Debian's libdrm-dev): cards, connectors, modes,
// dumb buffers, page flips and DRM master.
#include <xf86drm.h>
#include <xf86drmMode.h>

static const unsigned int PINPAD_DRM_MODE_PAGE_FLIP_EVENT = DRM_MODE_PAGE_FLIP_EVENT;
static const int PINPAD_DRM_EVENT_CONTEXT_VERSION = 2;
static const unsigned int PINPAD_DRM_MODE_TYPE_PREFERRED = DRM_MODE_TYPE_PREFERRED;
static const uint64_t PINPAD_DRM_CAP_DUMB_BUFFER = DRM_CAP_DUMB_BUFFER;
static const uint32_t PINPAD_DRM_MODE_OBJECT_CONNECTOR = DRM_MODE_OBJECT_CONNECTOR;
