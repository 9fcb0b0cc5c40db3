/* ALSA: sound played on a kiosk's own device, with no sound server. */
#include <alsa/asoundlib.h>
