/* ICU, for dates and times in the family's language (the system's libicu, which libical
   already brings). ICU renames its functions per version with macros Swift cannot follow,
   so they are called from here. */
#include <unicode/udat.h>
#include <unicode/udatpg.h>

/* `instant` (milliseconds since 1970, read in UTC) formatted for `locale` by the best pattern
   for `skeleton` (such as "EEEE" or "dMMMMy"); the UTF-16 length written into `out`, or -1. */
static inline int32_t mq_icu_format(const char *locale, const UChar *skeleton, int32_t skeleton_length,
                                    double instant, UChar *out, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    UDateTimePatternGenerator *generator = udatpg_open(locale, &status);
    if (U_FAILURE(status)) return -1;
    UChar pattern[128];
    int32_t length = udatpg_getBestPattern(generator, skeleton, skeleton_length, pattern, 128, &status);
    udatpg_close(generator);
    if (U_FAILURE(status)) return -1;
    static const UChar utc[] = {'U', 'T', 'C', 0};
    UDateFormat *format = udat_open(UDAT_PATTERN, UDAT_PATTERN, locale, utc, -1, pattern, length, &status);
    if (U_FAILURE(status)) return -1;
    int32_t written = udat_format(format, instant, out, capacity, NULL, &status);
    udat_close(format);
    return U_FAILURE(status) ? -1 : written;
}

/* Whether `locale` writes the time of day with a 12-hour clock (1) or a 24-hour one (0); -1
   if ICU does not know the locale. */
static inline int mq_icu_uses_12_hours(const char *locale) {
    UErrorCode status = U_ZERO_ERROR;
    UDateTimePatternGenerator *generator = udatpg_open(locale, &status);
    if (U_FAILURE(status)) return -1;
    UDateFormatHourCycle cycle = udatpg_getDefaultHourCycle(generator, &status);
    udatpg_close(generator);
    if (U_FAILURE(status)) return -1;
    return cycle == UDAT_HOUR_CYCLE_11 || cycle == UDAT_HOUR_CYCLE_12 ? 1 : 0;
}
