// LibRaw wrappers (Thumbnails area): camera raw files' embedded previews and
// half-size decodes, for thumbnails. LibRaw (libraw-dev, the reentrant
// libraw_r) is opened with dlopen on first use, as libvips is: it is C++ with
// OpenMP, and linking it would load libstdc++ and libgomp into every shoebox
// process. Its headers are read by raw.c alone.
#ifndef SHOEBOX_CSHIM_RAW_H
#define SHOEBOX_CSHIM_RAW_H

#include <stddef.h>
#include <stdint.h>

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

// Pixels or JPEG bytes made by LibRaw, copied out of its process (malloc'd).
typedef struct shim_raw_image {
    unsigned char *data;
    size_t size;
    // 1 when data is a JPEG stream; otherwise 8-bit pixels, bands per pixel, row by row.
    int is_jpeg;
    int width, height, bands;
} shim_raw_image;

// Loads LibRaw once; NULL when ready, else why not (a static string).
const char *shim_raw_setup(void);

// What an isolated LibRaw run is asked to do.
enum shim_raw_job {
    SHIM_RAW_INFO = 0,     // the headers only
    SHIM_RAW_PREVIEW = 1,  // the embedded preview, as stored (not turned upright)
    SHIM_RAW_HALF = 2,     // the sensor data at half size (no demosaicing: one pixel per 2x2
                           // block), upright 8-bit sRGB; fails on truncated or damaged data
};

// Runs `job` on the raw file at `path` (or the `size` bytes at `data` when path is NULL) in a
// child process, so that nothing LibRaw does on hostile input (its 0.20 overflows a heap
// buffer on some damaged previews) can touch this one: the child is killed after `seconds`,
// LibRaw in it allocates at most `max_memory_mb`, and its output is checked here (at most
// `max_output_bytes`, pixel counts matching). 0 on success with `info` (and for a preview or
// a decode `out`, whose data is malloc'd: shim_raw_image_free); otherwise the reason in `error`.
int shim_raw_run(const char *path, const void *data, size_t size, enum shim_raw_job job, int max_memory_mb,
                 double seconds, int64_t max_output_bytes, shim_raw_info *info, shim_raw_image *out,
                 char *error, size_t error_size);
void shim_raw_image_free(shim_raw_image *image);

#endif
