#include "icu_format.h"
#include <unicode/udat.h>
#include <unicode/udatpg.h>
#include <unicode/ubrk.h>
#include <unicode/uloc.h>
#include <unicode/unum.h>
#include <unicode/ustring.h>
#include <string.h>

int32_t mq_icu_format(const char *locale, const uint16_t *skeleton, int32_t skeleton_length,
                      double instant, uint16_t *out, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    UDateTimePatternGenerator *generator = udatpg_open(locale, &status);
    if (U_FAILURE(status)) return -1;
    UChar pattern[128];
    int32_t length = udatpg_getBestPattern(generator, (const UChar *)skeleton, skeleton_length, pattern, 128,
                                           &status);
    udatpg_close(generator);
    if (U_FAILURE(status)) return -1;
    static const UChar utc[] = {'U', 'T', 'C', 0};
    UDateFormat *format = udat_open(UDAT_PATTERN, UDAT_PATTERN, locale, utc, -1, pattern, length, &status);
    if (U_FAILURE(status)) return -1;
    int32_t written = udat_format(format, instant, (UChar *)out, capacity, NULL, &status);
    udat_close(format);
    return U_FAILURE(status) ? -1 : written;
}

int32_t mq_icu_line_breaks(const uint16_t *text, int32_t length, int32_t *out, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    UBreakIterator *breaks = ubrk_open(UBRK_LINE, "", (const UChar *)text, length, &status);
    if (U_FAILURE(status)) return -1;
    int32_t count = 0;
    for (int32_t offset = ubrk_first(breaks); offset != UBRK_DONE; offset = ubrk_next(breaks)) {
        if (count < capacity) out[count] = offset;
        count++;
    }
    ubrk_close(breaks);
    return count;
}

int32_t mq_icu_languages(char *out, int32_t capacity) {
    int32_t written = 0;
    char last[ULOC_LANG_CAPACITY] = "";
    for (int32_t index = 0; index < uloc_countAvailable(); index++) {
        const char *locale = uloc_getAvailable(index);
        char language[ULOC_LANG_CAPACITY];
        UErrorCode status = U_ZERO_ERROR;
        uloc_getLanguage(locale, language, sizeof language, &status);
        if (U_FAILURE(status) || strcmp(language, last) == 0) continue;
        strcpy(last, language);
        UChar name[128];
        int32_t length = uloc_getDisplayLanguage(language, "en", name, 128, &status);
        char utf8[384];
        int32_t utf8Length = 0;
        u_strToUTF8(utf8, sizeof utf8, &utf8Length, name, length, &status);
        if (U_FAILURE(status)) continue;
        int32_t needed = (int32_t)strlen(language) + 1 + utf8Length + 1;
        if (written + needed > capacity) return -1;
        memcpy(out + written, language, strlen(language));
        written += (int32_t)strlen(language);
        out[written++] = '\t';
        memcpy(out + written, utf8, utf8Length);
        written += utf8Length;
        out[written++] = '\n';
    }
    return written;
}

int32_t mq_icu_ordinal(const char *locale, int32_t value, uint16_t *out, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    UNumberFormat *format = unum_open(UNUM_ORDINAL, NULL, 0, locale, NULL, &status);
    if (U_FAILURE(status)) return -1;
    int32_t written = unum_format(format, value, (UChar *)out, capacity, NULL, &status);
    unum_close(format);
    return U_FAILURE(status) ? -1 : written;
}
