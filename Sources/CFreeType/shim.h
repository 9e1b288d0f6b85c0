// FreeType 2 (pkg-config freetype2, Debian's libfreetype-dev): outline fonts (TrueType,
// OpenType) rendered to 8-bit coverage.
#include <ft2build.h>
#include FT_FREETYPE_H

static const FT_Int32 PINPAD_FT_LOAD_RENDER = FT_LOAD_RENDER;
static const FT_Int32 PINPAD_FT_LOAD_TARGET_LIGHT = FT_LOAD_TARGET_LIGHT;
static const FT_Long PINPAD_FT_FACE_FLAG_SCALABLE = FT_FACE_FLAG_SCALABLE;
static const FT_Long PINPAD_FT_FACE_FLAG_KERNING = FT_FACE_FLAG_KERNING;
static const FT_Int32 PINPAD_FT_LOAD_NO_SCALE = FT_LOAD_NO_SCALE;
static const FT_Int32 PINPAD_FT_LOAD_NO_BITMAP = FT_LOAD_NO_BITMAP;
static const FT_UInt PINPAD_FT_KERNING_UNSCALED = FT_KERNING_UNSCALED;
static const unsigned char PINPAD_FT_PIXEL_MODE_GRAY = FT_PIXEL_MODE_GRAY;
