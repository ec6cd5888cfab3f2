// LibRaw wrappers (Thumbnails area): camera raw files' embedded previews and
// half-size decodes, for thumbnails. LibRaw (libraw-dev, the reentrant
// libraw_r) is opened with dlopen on first use, as libvips is: it is C++ with
// OpenMP, and linking it would load libstdc++ and libgomp into every shoebox
// process. Its headers are read by raw.c alone.
#ifndef SHOEBOX_CSHIM_RAW_H
#define SHOEBOX_CSHIM_RAW_H

#include <stddef.h>
#include <stdint.h>

// One raw file opened by LibRaw (a libraw_data_t), opaque here.
typedef struct shim_raw shim_raw;

// What LibRaw read from the file's headers.
typedef struct shim_raw_info {
    // The image as LibRaw outputs it, before orientation (sizes.width/height).
    int width, height;
    // The sensor data's size (sizes.raw_width/raw_height): what unpacking allocates.
    int raw_width, raw_height;
    // The camera's orientation as EXIF numbers it (1, 3, 6 or 8), from LibRaw's flip.
    int orientation;
    // The embedded preview's size as the headers state it (0 when there is none),
    // and its length in bytes.
    int preview_width, preview_height;
    int64_t preview_bytes;
} shim_raw_info;

// Pixels or JPEG bytes made by LibRaw (a libraw_processed_image_t).
typedef struct shim_raw_image {
    const unsigned char *data;
    size_t size;
    // 1 when data is a JPEG stream; otherwise 8-bit pixels, bands per pixel, row by row.
    int is_jpeg;
    int width, height, bands;
    void *owner;
} shim_raw_image;

// Loads LibRaw once; NULL when ready, else why not (a static string).
const char *shim_raw_setup(void);
// Opens the file at `path` (or the `size` bytes at `data`, which must outlive the
// handle), reading its headers. LibRaw allocates at most `max_memory_mb` for it.
// NULL on failure, with LibRaw's reason in `error`.
shim_raw *shim_raw_open_file(const char *path, int max_memory_mb, char *error, size_t error_size);
shim_raw *shim_raw_open_buffer(const void *data, size_t size, int max_memory_mb, char *error, size_t error_size);
void shim_raw_get_info(shim_raw *raw, shim_raw_info *out);
// The embedded preview, as stored (not turned upright). 0 on success.
int shim_raw_preview(shim_raw *raw, shim_raw_image *out, char *error, size_t error_size);
// Decodes the sensor data at half size (no demosaicing: one pixel per 2x2 block)
// into upright 8-bit sRGB; gives up once `seconds` have passed. 0 on success;
// fails when LibRaw met truncated or damaged data on the way.
int shim_raw_decode_half(shim_raw *raw, double seconds, shim_raw_image *out, char *error, size_t error_size);
void shim_raw_image_free(shim_raw_image *image);
void shim_raw_close(shim_raw *raw);

#endif
