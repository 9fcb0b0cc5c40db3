/* libsndfile: a carer's own recording (WAV, FLAC, Ogg, MP3) read for a reminder. */
#include <sndfile.h>
