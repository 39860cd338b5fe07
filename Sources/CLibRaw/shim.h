/* LibRaw's C API (the thread-safe libraw_r: one libraw_data_t per call, no globals), with the few
 * accessors Swift cannot write itself: fields of libraw_data_t's nested structs, and the output
 * parameters set by name. Only MedleyMedia/Raw/RawFile.swift imports this module. */
#include <libraw/libraw.h>

/* The development Medley asks of LibRaw (`dcraw_emu -w -6 -g 2.4 12.92`): the camera's white
 * balance and colour matrix, sRGB primaries with the sRGB curve, 16 bits per sample. */
static inline void medley_raw_set_develop(libraw_data_t *raw) {
    raw->params.use_camera_wb = 1;
    raw->params.use_camera_matrix = 1;
    raw->params.output_color = 1;        /* sRGB primaries */
    raw->params.output_bps = 16;
    raw->params.gamm[0] = 1.0 / 2.4;     /* the sRGB curve (dcraw's default is BT.709's) */
    raw->params.gamm[1] = 12.92;
}

static inline const libraw_image_sizes_t *medley_raw_sizes(const libraw_data_t *raw) { return &raw->sizes; }
static inline const libraw_thumbnail_t *medley_raw_thumbnail(const libraw_data_t *raw) { return &raw->thumbnail; }
static inline unsigned medley_raw_warnings(const libraw_data_t *raw) { return raw->process_warnings; }
