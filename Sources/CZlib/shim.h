#ifndef SESSIONHUB_CZLIB_SHIM_H
#define SESSIONHUB_CZLIB_SHIM_H
#include <zlib.h>

/// `deflateInit2` is a macro in zlib.h; Swift cannot call macros, so wrap it.
static inline int sessionhub_deflateInit2(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}

/// `inflateInit2` is a macro in zlib.h; Swift cannot call macros, so wrap it.
static inline int sessionhub_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
