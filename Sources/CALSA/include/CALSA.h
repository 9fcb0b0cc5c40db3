/* ALSA: sound played on a kiosk's own device, with no sound server. */
#include <alsa/asoundlib.h>

/* From now on ALSA's library says nothing on standard error (on a terminal that is the
   display): marquee says what failed itself, once, with the device's name. */
void mq_alsa_keep_quiet(void);
