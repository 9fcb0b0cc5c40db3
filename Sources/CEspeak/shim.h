/* eSpeak NG: speech synthesis, offline, in the languages of the display. */
#include <espeak-ng/speak_lib.h>
