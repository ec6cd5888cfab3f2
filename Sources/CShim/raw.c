/* LibRaw wrappers (Thumbnails area); see include/raw.h.
 *
 * LibRaw is opened with dlopen on first use, the way vips.c opens libvips, so
 * that only `thumbs` (and what renders raws) pays for loading it. Each function
 * below goes through a pointer looked up once by shim_raw_setup. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libraw.h>
#include "raw.h"

#define SHIM_RAW_FUNCTIONS(X) \
    X(libraw_init) X(libraw_open_file) X(libraw_open_buffer) X(libraw_unpack) X(libraw_unpack_thumb) \
    X(libraw_dcraw_process) X(libraw_dcraw_make_mem_image) X(libraw_dcraw_make_mem_thumb) \
    X(libraw_dcraw_clear_mem) X(libraw_close) X(libraw_strerror) X(libraw_set_dataerror_handler) \
    X(libraw_set_memerror_handler) X(libraw_set_progress_handler)

#define SHIM_RAW_DECLARE(name) static __typeof__(name) *p_##name;
SHIM_RAW_FUNCTIONS(SHIM_RAW_DECLARE)

static pthread_once_t shim_raw_once = PTHREAD_ONCE_INIT;
static char shim_raw_load_error[256];

static void shim_raw_load(void) {
    char soname[64];
    snprintf(soname, sizeof soname, "libraw_r.so.%d", LIBRAW_SHLIB_CURRENT);
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(shim_raw_load_error, sizeof shim_raw_load_error, "cannot load LibRaw (%s): %s", soname, dlerror());
        return;
    }
#define SHIM_RAW_LOOKUP(name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(library, #name))) { \
        snprintf(shim_raw_load_error, sizeof shim_raw_load_error, "LibRaw lacks %s", #name); \
        return; \
    }
    SHIM_RAW_FUNCTIONS(SHIM_RAW_LOOKUP)
}

const char *shim_raw_setup(void) {
    pthread_once(&shim_raw_once, shim_raw_load);
    return shim_raw_load_error[0] ? shim_raw_load_error : NULL;
}

/* A handle and what its callbacks saw: LibRaw reports truncated or damaged
   data through the data-error callback (by default printed to stderr), not
   always through a return code. */
struct shim_raw {
    libraw_data_t *data;
    int data_errors;
    int data_error_offset;
    int out_of_memory;
    double deadline;
};

static double shim_raw_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void shim_raw_data_error(void *context, const char *file, const int offset) {
    (void)file;
    struct shim_raw *raw = context;
    if (raw->data_errors++ == 0) raw->data_error_offset = offset;
}

static void shim_raw_memory_error(void *context, const char *file, const char *where) {
    (void)file; (void)where;
    ((struct shim_raw *)context)->out_of_memory = 1;
}

static int shim_raw_progress(void *context, enum LibRaw_progress stage, int iteration, int expected) {
    (void)stage; (void)iteration; (void)expected;
    struct shim_raw *raw = context;
    return raw->deadline > 0 && shim_raw_now() > raw->deadline ? 1 : 0;
}

static void shim_raw_say(char *error, size_t size, const char *what, int code) {
    if (error && size) snprintf(error, size, "%s: %s", what, p_libraw_strerror(code));
}

static shim_raw *shim_raw_new(int max_memory_mb, char *error, size_t error_size) {
    if (shim_raw_setup()) {
        if (error && error_size) snprintf(error, error_size, "%s", shim_raw_load_error);
        return NULL;
    }
    shim_raw *raw = calloc(1, sizeof *raw);
    if (!raw) return NULL;
    raw->data = p_libraw_init(0);
    if (!raw->data) {
        free(raw);
        if (error && error_size) snprintf(error, error_size, "LibRaw could not start");
        return NULL;
    }
    p_libraw_set_dataerror_handler(raw->data, shim_raw_data_error, raw);
    p_libraw_set_memerror_handler(raw->data, shim_raw_memory_error, raw);
    p_libraw_set_progress_handler(raw->data, shim_raw_progress, raw);
    if (max_memory_mb > 0) raw->data->params.max_raw_memory_mb = (unsigned)max_memory_mb;
    return raw;
}

static shim_raw *shim_raw_opened(shim_raw *raw, int code, char *error, size_t error_size) {
    if (code != LIBRAW_SUCCESS) {
        shim_raw_say(error, error_size, "LibRaw cannot read it", code);
        shim_raw_close(raw);
        return NULL;
    }
    return raw;
}

shim_raw *shim_raw_open_file(const char *path, int max_memory_mb, char *error, size_t error_size) {
    shim_raw *raw = shim_raw_new(max_memory_mb, error, error_size);
    return raw ? shim_raw_opened(raw, p_libraw_open_file(raw->data, path), error, error_size) : NULL;
}

shim_raw *shim_raw_open_buffer(const void *data, size_t size, int max_memory_mb, char *error, size_t error_size) {
    shim_raw *raw = shim_raw_new(max_memory_mb, error, error_size);
    return raw ? shim_raw_opened(raw, p_libraw_open_buffer(raw->data, (void *)data, size), error, error_size) : NULL;
}

void shim_raw_get_info(shim_raw *raw, shim_raw_info *out) {
    memset(out, 0, sizeof *out);
    libraw_data_t *d = raw->data;
    out->width = d->sizes.width;
    out->height = d->sizes.height;
    out->raw_width = d->sizes.raw_width;
    out->raw_height = d->sizes.raw_height;
    /* LibRaw's flip: 3 half a turn, 5 a quarter anticlockwise, 6 a quarter clockwise. */
    switch (d->sizes.flip) {
    case 3: out->orientation = 3; break;
    case 5: out->orientation = 8; break;
    case 6: out->orientation = 6; break;
    default: out->orientation = 1; break;
    }
    out->preview_width = d->thumbnail.twidth;
    out->preview_height = d->thumbnail.theight;
    out->preview_bytes = d->thumbnail.tlength;
}

static int shim_raw_take(libraw_processed_image_t *made, shim_raw_image *out) {
    memset(out, 0, sizeof *out);
    out->owner = made;
    out->data = made->data;
    out->size = made->data_size;
    out->is_jpeg = made->type == LIBRAW_IMAGE_JPEG;
    out->width = made->width;
    out->height = made->height;
    out->bands = made->colors;
    if (!out->is_jpeg) {
        size_t needed = (size_t)made->width * made->height * made->colors;
        if (made->bits != 8 || (made->colors != 1 && made->colors != 3) || made->width == 0 ||
            made->height == 0 || made->data_size < needed) {
            return -1;
        }
    } else if (made->data_size < 4) {
        return -1;
    }
    return 0;
}

int shim_raw_preview(shim_raw *raw, shim_raw_image *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    raw->data_errors = 0;
    int code = p_libraw_unpack_thumb(raw->data);
    if (code != LIBRAW_SUCCESS) {
        shim_raw_say(error, error_size, "its preview cannot be read", code);
        return -1;
    }
    if (raw->data_errors) {
        if (error && error_size) snprintf(error, error_size, "its preview is truncated or damaged (at byte %d)", raw->data_error_offset);
        return -1;
    }
    libraw_processed_image_t *made = p_libraw_dcraw_make_mem_thumb(raw->data, &code);
    if (!made) {
        shim_raw_say(error, error_size, "its preview cannot be read", code);
        return -1;
    }
    if (shim_raw_take(made, out)) {
        shim_raw_image_free(out);
        if (error && error_size) snprintf(error, error_size, "its preview is in a form shoebox cannot show");
        return -1;
    }
    return 0;
}

int shim_raw_decode_half(shim_raw *raw, double seconds, shim_raw_image *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    libraw_data_t *d = raw->data;
    raw->data_errors = 0;
    raw->deadline = seconds > 0 ? shim_raw_now() + seconds : 0;
    d->params.half_size = 1;
    d->params.output_bps = 8;
    d->params.output_color = 1; /* sRGB */
    d->params.use_camera_wb = 1;
    int code = p_libraw_unpack(d);
    if (code == LIBRAW_SUCCESS) code = p_libraw_dcraw_process(d);
    if (code != LIBRAW_SUCCESS) {
        if (raw->out_of_memory || code == LIBRAW_UNSUFFICIENT_MEMORY) {
            if (error && error_size) snprintf(error, error_size, "decoding it takes more memory than LibRaw is allowed");
        } else {
            shim_raw_say(error, error_size, "its sensor data cannot be decoded", code);
        }
        return -1;
    }
    if (raw->data_errors) {
        if (error && error_size) snprintf(error, error_size, "its sensor data is truncated or damaged (at byte %d)", raw->data_error_offset);
        return -1;
    }
    libraw_processed_image_t *made = p_libraw_dcraw_make_mem_image(d, &code);
    if (!made) {
        shim_raw_say(error, error_size, "its sensor data cannot be decoded", code);
        return -1;
    }
    if (shim_raw_take(made, out) || out->is_jpeg) {
        shim_raw_image_free(out);
        if (error && error_size) snprintf(error, error_size, "LibRaw's decode is in a form shoebox cannot use");
        return -1;
    }
    return 0;
}

void shim_raw_image_free(shim_raw_image *image) {
    if (image && image->owner) p_libraw_dcraw_clear_mem(image->owner);
    if (image) memset(image, 0, sizeof *image);
}

void shim_raw_close(shim_raw *raw) {
    if (!raw) return;
    if (raw->data) p_libraw_close(raw->data);
    free(raw);
}
