/* FreeType, and its load flags as constants (FreeType defines them as macros Swift cannot import). */
#include <ft2build.h>
#include FT_FREETYPE_H

static const FT_Int32 mq_ft_load_light = FT_LOAD_TARGET_LIGHT;
static const FT_Int32 mq_ft_load_colour = FT_LOAD_COLOR;
static const FT_Int32 mq_ft_load_render = FT_LOAD_RENDER;
static const FT_Int32 mq_ft_load_no_hinting = FT_LOAD_NO_HINTING;

static inline int mq_ft_has_colour(FT_Face face) { return FT_HAS_COLOR(face) ? 1 : 0; }
static inline int mq_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }
static inline int mq_ft_is_scalable(FT_Face face) { return FT_IS_SCALABLE(face) ? 1 : 0; }
