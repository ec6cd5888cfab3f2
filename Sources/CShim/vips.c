/* libvips wrappers (Thumbnails area).
 *
 * libvips is opened with dlopen on first use instead of being linked: it pulls
 * in about a hundred libraries (poppler, librsvg, OpenEXR, x265...) whose
 * loading and relocation cost every shoebox process 25 ms at start, fetch and
 * inspect included. Each function below goes through a pointer looked up once
 * by shim_vips_setup_batch; none may be called before it succeeds. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <vips/vips.h>
#include "cshim.h"

/* Every libvips, GObject and GLib function used here, looked up by name. Their
   pointer types come from the headers (__typeof__ does not reference the
   symbol, so nothing is linked). */
#define SHIM_VIPS_FUNCTIONS(X) \
    X(vips_init) X(vips_block_untrusted_set) X(vips_concurrency_set) X(vips_cache_set_max) \
    X(vips_error_buffer_copy) X(vips_image_new_from_file) X(vips_image_get_typeof) \
    X(vips_image_get_string) X(vips_image_get_interpretation) X(vips_image_get_format) \
    X(vips_image_get_width) X(vips_image_get_height) X(vips_image_get_bands) X(vips_image_get_int) X(vips_format_sizeof) X(vips_image_get_orientation_swap) \
    X(vips_image_hasalpha) X(vips_image_copy_memory) X(vips_jpegload) X(vips_thumbnail) \
    X(vips_thumbnail_image) X(vips_colourspace) X(vips_cast_uchar) X(vips_flatten) \
    X(vips_array_double_new) X(vips_area_unref) X(vips_jpegsave) X(vips_webpsave) X(vips_heifsave) \
    X(vips_copy) X(vips_image_remove) X(vips_image_get_fields) X(g_strfreev) \
    X(g_object_ref) X(g_object_unref) X(g_free) X(g_log_set_handler) \
    X(vips_jpegload_buffer) X(vips_image_new_from_memory_copy) X(vips_rot) X(vips_error)

#define SHIM_DECLARE(name) static __typeof__(name) *p_##name;
SHIM_VIPS_FUNCTIONS(SHIM_DECLARE)

static pthread_once_t shim_vips_once = PTHREAD_ONCE_INIT;
static char shim_vips_load_error[512];

static void shim_vips_quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

static void shim_vips_load(void) {
    strcpy(shim_vips_load_error, "libvips setup did not finish");
    /* The shared object of the libvips the headers describe (libvips.so.42). */
    char soname[64];
    snprintf(soname, sizeof soname, "libvips.so.%d", VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE);
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(shim_vips_load_error, sizeof shim_vips_load_error, "cannot load libvips: %s", dlerror());
        return;
    }
#define SHIM_LOOKUP(name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(library, #name))) { \
        snprintf(shim_vips_load_error, sizeof shim_vips_load_error, "libvips lacks %s", #name); \
        return; \
    }
    SHIM_VIPS_FUNCTIONS(SHIM_LOOKUP)
    /* Batch decoding frees and reallocates multi-megabyte buffers on several
       threads: by default glibc keeps an arena per thread and raises its mmap
       threshold, so freed image buffers stay resident and peak RSS grows with
       the thread count. One arena (no measurable contention with a worker per
       core here) and fixed thresholds hand large buffers back at once:
       two sizes at -j 2 went from ~140 MB to ~88 MB peak. */
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
    if (p_vips_init("shoebox") != 0) {
        snprintf(shim_vips_load_error, sizeof shim_vips_load_error, "vips_init failed");
        return;
    }
    /* Originals come from anywhere: refuse the loaders libvips marks untrusted
       (ImageMagick, MATLAB, FITS...), a large parsing surface; JPEG, PNG, WebP,
       HEIF/AVIF, TIFF and GIF stay available. */
    p_vips_block_untrusted_set(TRUE);
    /* Per-tile warnings ("error in tile 0 x 64") would interleave with our own
       messages, which name the file; the failure itself is still reported. */
    p_g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, shim_vips_quiet_log, NULL);
    p_vips_cache_set_max(0);
    shim_vips_load_error[0] = '\0';
}

const char *shim_vips_setup_batch(int concurrency) {
    pthread_once(&shim_vips_once, shim_vips_load);
    if (shim_vips_load_error[0]) return shim_vips_load_error;
    p_vips_concurrency_set(concurrency < 1 ? 1 : concurrency);
    return NULL;
}

char *shim_vips_take_error(void) {
    char *text = p_vips_error_buffer_copy();
    char *copy = text ? strdup(text) : NULL;
    if (text) p_g_free(text);
    return copy;
}

void shim_release_free_memory(void) {
    malloc_trim(0);
}

static VipsInteresting crop_mode(int crop) {
    switch (crop) {
    case 1: return VIPS_INTERESTING_CENTRE;
    case 2: return VIPS_INTERESTING_ATTENTION;
    default: return VIPS_INTERESTING_NONE;
    }
}

VipsImage *shim_vips_open_header(const char *path) {
    return p_vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

int shim_vips_width(VipsImage *image) { return p_vips_image_get_width(image); }
int shim_vips_height(VipsImage *image) { return p_vips_image_get_height(image); }
int shim_vips_orientation_swap(VipsImage *image) { return p_vips_image_get_orientation_swap(image) ? 1 : 0; }
VipsImage *shim_vips_copy_memory(VipsImage *image) { return p_vips_image_copy_memory(image); }

int shim_vips_jpegsave(VipsImage *in, const char *path, int q, int keep) {
    return p_vips_jpegsave(in, path, "Q", q, "strip", !keep, "optimize_coding", TRUE, NULL);
}

/* libvips 8.14.1's webpsave ignores "strip": it writes XMP, and an EXIF block rebuilt
   from the image's "exif-ifd..." fields (GPS included). Without keep, it saves a copy
   with every metadata field removed. */
int shim_vips_webpsave(VipsImage *in, const char *path, int q, int keep) {
    if (keep) return p_vips_webpsave(in, path, "Q", q, NULL);
    VipsImage *bare;
    if (p_vips_copy(in, &bare, NULL)) return -1;
    gchar **fields = p_vips_image_get_fields(bare);
    for (gchar **field = fields; *field; field++) {
        if (strncmp(*field, "exif-", 5) == 0 || strcmp(*field, VIPS_META_XMP_NAME) == 0 ||
            strcmp(*field, VIPS_META_IPTC_NAME) == 0 || strcmp(*field, VIPS_META_ICC_NAME) == 0) {
            p_vips_image_remove(bare, *field);
        }
    }
    p_g_strfreev(fields);
    int result = p_vips_webpsave(bare, path, "Q", q, "strip", TRUE, NULL);
    p_g_object_unref(bare);
    return result;
}

int shim_vips_avifsave(VipsImage *in, const char *path, int q, int keep) {
    return p_vips_heifsave(in, path, "Q", q, "strip", !keep,
                           "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1, NULL);
}

int shim_vips_thumbnail_srgb(const char *path, VipsImage **out, int width, int height, int crop, int has_icc) {
    if (has_icc) {
        return p_vips_thumbnail(path, out, width, "height", height, "crop", crop_mode(crop),
                                "size", VIPS_SIZE_DOWN, "export_profile", "srgb",
                                "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    }
    return p_vips_thumbnail(path, out, width, "height", height, "crop", crop_mode(crop),
                            "size", VIPS_SIZE_DOWN, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int shim_vips_has_icc(VipsImage *image) {
    return p_vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

int shim_vips_thumbnail_derived(VipsImage *in, VipsImage **out, int width, int height, int crop) {
    return p_vips_thumbnail_image(in, out, width, "height", height, "crop", crop_mode(crop),
                                  "size", VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL);
}

int shim_vips_to_srgb8(VipsImage *in, VipsImage **out, int flatten_alpha) {
    VipsImage *current = in;
    VipsImage *next = NULL;
    p_g_object_ref(current);
    VipsInterpretation kind = p_vips_image_get_interpretation(current);
    int grey = kind == VIPS_INTERPRETATION_B_W;
    if ((kind != VIPS_INTERPRETATION_sRGB && !grey) || p_vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        if (p_vips_colourspace(current, &next, grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB, NULL)) {
            p_g_object_unref(current);
            return -1;
        }
        p_g_object_unref(current);
        current = next;
        if (p_vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
            if (p_vips_cast_uchar(current, &next, NULL)) {
                p_g_object_unref(current);
                return -1;
            }
            p_g_object_unref(current);
            current = next;
        }
    }
    if (flatten_alpha && p_vips_image_hasalpha(current)) {
        double white[1] = { 255.0 };
        VipsArrayDouble *background = p_vips_array_double_new(white, 1);
        int failed = p_vips_flatten(current, &next, "background", background, NULL);
        p_vips_area_unref(VIPS_AREA(background));
        p_g_object_unref(current);
        if (failed) return -1;
        current = next;
    }
    *out = current;
    return 0;
}

void shim_vips_unref(VipsImage *image) {
    if (image) p_g_object_unref(image);
}

int shim_vips_thumbnail_jpeg(const char *path, VipsImage **out, int width, int height, int crop, int has_icc,
                             int shrink) {
    VipsImage *decoded = NULL;
    if (p_vips_jpegload(path, &decoded, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL,
                        "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL)) {
        return -1;
    }
    int status;
    if (has_icc) {
        status = p_vips_thumbnail_image(decoded, out, width, "height", height, "crop", crop_mode(crop),
                                        "size", VIPS_SIZE_DOWN, "export_profile", "srgb", NULL);
    } else {
        status = p_vips_thumbnail_image(decoded, out, width, "height", height, "crop", crop_mode(crop),
                                        "size", VIPS_SIZE_DOWN, NULL);
    }
    p_g_object_unref(decoded);
    return status;
}

int shim_vips_is_jpeg(VipsImage *image) {
    const char *loader = NULL;
    if (p_vips_image_get_typeof(image, VIPS_META_LOADER) == 0) return 0;
    if (p_vips_image_get_string(image, VIPS_META_LOADER, &loader)) return 0;
    return loader && strcmp(loader, "jpegload") == 0;
}

void shim_vips_header_info(VipsImage *image, shim_vips_header *out) {
    memset(out, 0, sizeof *out);
    out->width = p_vips_image_get_width(image);
    out->height = p_vips_image_get_height(image);
    out->bands = p_vips_image_get_bands(image);
    out->bytes_per_sample = (int)p_vips_format_sizeof(p_vips_image_get_format(image));
    int flag = 0;
    if (p_vips_image_get_typeof(image, "interlaced") && p_vips_image_get_int(image, "interlaced", &flag) == 0) {
        out->interlaced = flag ? 1 : 0;
    }
    const char *text = NULL;
    if (p_vips_image_get_typeof(image, VIPS_META_LOADER) && p_vips_image_get_string(image, VIPS_META_LOADER, &text) == 0 && text) {
        snprintf(out->loader, sizeof out->loader, "%s", text);
    }
    text = NULL;
    if (p_vips_image_get_typeof(image, "jpeg-chroma-subsample") &&
        p_vips_image_get_string(image, "jpeg-chroma-subsample", &text) == 0 && text) {
        snprintf(out->chroma_subsample, sizeof out->chroma_subsample, "%s", text);
    }
}

VipsImage *shim_vips_from_raw(const shim_raw_image *image, int shrink, int orientation, int64_t max_pixels) {
    VipsImage *decoded = NULL;
    if (image->is_jpeg) {
        /* LibRaw's buffer is freed after this call: decode now, into memory. */
        VipsImage *lazy = NULL;
        if (p_vips_jpegload_buffer((void *)image->data, image->size, &lazy, "shrink", shrink < 1 ? 1 : shrink,
                                   "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL)) {
            return NULL;
        }
        /* The preview's own header, not the size the raw's headers state, says what decoding it takes;
           a progressive JPEG keeps the coefficients of its full size however much it is shrunk. */
        int64_t pixels = (int64_t)p_vips_image_get_width(lazy) * p_vips_image_get_height(lazy);
        int interlaced = 0;
        if (p_vips_image_get_typeof(lazy, "interlaced") && p_vips_image_get_int(lazy, "interlaced", &interlaced) == 0 &&
            interlaced) {
            pixels *= (int64_t)(shrink < 1 ? 1 : shrink) * (shrink < 1 ? 1 : shrink);
        }
        if (pixels > max_pixels) {
            p_vips_error("shoebox", "the preview is %dx%d after shrinking (more to decode when progressive), over the limit of %lld pixels",
                         p_vips_image_get_width(lazy), p_vips_image_get_height(lazy), (long long)max_pixels);
            p_g_object_unref(lazy);
            return NULL;
        }
        decoded = p_vips_image_copy_memory(lazy);
        p_g_object_unref(lazy);
    } else {
        decoded = p_vips_image_new_from_memory_copy(image->data, image->size, image->width, image->height,
                                                    image->bands, VIPS_FORMAT_UCHAR);
        if (decoded) {
            /* Plain pixels say nothing of their colour space: LibRaw makes sRGB (or grey). */
            decoded->Type = image->bands == 1 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
        }
    }
    if (!decoded) return NULL;
    VipsAngle angle;
    switch (orientation) {
    case 3: angle = VIPS_ANGLE_D180; break;
    case 6: angle = VIPS_ANGLE_D90; break;
    case 8: angle = VIPS_ANGLE_D270; break;
    default: return decoded;
    }
    VipsImage *turned = NULL;
    int failed = p_vips_rot(decoded, &turned, angle, NULL);
    p_g_object_unref(decoded);
    if (failed) return NULL;
    VipsImage *upright = p_vips_image_copy_memory(turned);
    p_g_object_unref(turned);
    return upright;
}
