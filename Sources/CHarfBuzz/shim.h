/* HarfBuzz: shapes runs of text with the fonts' own OpenType tables (read by HarfBuzz itself). */
#include <hb.h>
#include <hb-ot.h>
