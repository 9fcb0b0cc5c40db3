/* ICU, for dates and times in the family's language (the system's libicu, which libical
   already brings). Only plain C types cross this header: ICU's own headers stay inside the
   C file, because Foundation carries a copy of ICU whose headers clash with the system's in
   any Swift module that sees both. */
#include <stdint.h>

/* `instant` (milliseconds since 1970, read in UTC) formatted for `locale` by the best pattern
   for `skeleton` (UTF-16, such as "EEEE" or "dMMMMy"); the UTF-16 length written into `out`,
   or -1. */
int32_t mq_icu_format(const char *locale, const uint16_t *skeleton, int32_t skeleton_length,
                      double instant, uint16_t *out, int32_t capacity);

/* Where lines of `text` (UTF-16) may break, by Unicode's line breaking rules (UAX #14, with
   ICU's dictionaries for Thai, Lao, Khmer and Burmese): the UTF-16 offsets at which a line may
   begin, in order (the first is 0, the last the length); how many there are (only the first
   `capacity` are written), or -1. */
int32_t mq_icu_line_breaks(const uint16_t *text, int32_t length, int32_t *out, int32_t capacity);

/* The languages ICU has data for, one line each: the code, a tab, the name in English
   ("de\tGerman\n"), UTF-8; the bytes written into `out` (at most `capacity`), or -1. */
int32_t mq_icu_languages(char *out, int32_t capacity);

/* `value` as an ordinal number in `locale`'s digits and rules ("81st", "82nd", "11th"; German
   "81."; French "81e"), UTF-16; the length written into `out`, or -1. */
int32_t mq_icu_ordinal(const char *locale, int32_t value, uint16_t *out, int32_t capacity);
