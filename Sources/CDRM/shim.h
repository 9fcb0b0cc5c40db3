/* libdrm: kernel mode setting (connectors, modes, dumb buffers, page flips, DRM master). */
#include <xf86drm.h>
#include <xf86drmMode.h>
