// Typed wrappers for the C calls Swift cannot make: variadic functions
// (curl_easy_setopt, curl_easy_getinfo, vips_*), macros and tuple-typed fields.
// One wrapper per C argument type: curl's compile-time type checks are off under
// clang, so a wrong type would be silent undefined behaviour.
#ifndef SHOEBOX_CSHIM_H
#define SHOEBOX_CSHIM_H

// Include the system-library modules' own headers, so that Clang maps them to
// the CCurl/CExif modules instead of re-declaring the C APIs inside
// CShim (which hid CURLE_* constants from Swift files importing CCurl alone).
#include "../../CCurl/shim.h"
#include "../../CExif/shim.h"
#include "raw.h"

// libvips' image, opaque here: its headers are read by vips.c alone.
typedef struct _VipsImage VipsImage;

typedef size_t (*shim_curl_data_fn)(char *data, size_t size, size_t count, void *userdata);
typedef int (*shim_curl_xferinfo_fn)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                     curl_off_t ultotal, curl_off_t ulnow);

// libcurl easy options, by value type.
CURLcode shim_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode shim_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode shim_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode shim_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode shim_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode shim_curl_setopt_data_function(CURL *handle, CURLoption option, shim_curl_data_fn fn);
CURLcode shim_curl_setopt_xferinfo_function(CURL *handle, shim_curl_xferinfo_fn fn);
// CURLOPT_SEEKFUNCTION: lets libcurl rewind an upload it must send again (a reused
// connection found closed).
typedef int (*shim_curl_seek_fn)(void *userdata, curl_off_t offset, int origin);
CURLcode shim_curl_setopt_seek_function(CURL *handle, shim_curl_seek_fn fn);

// libcurl easy info, by result type. Strings belong to the handle: copy them.
CURLcode shim_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode shim_curl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode shim_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode shim_curl_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

// libcurl multi options.
CURLMcode shim_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

// libcurl share options (CURLSHOPT_SHARE / CURLSHOPT_UNSHARE take a curl_lock_data as long).
CURLSHcode shim_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value);

// libexif: ExifData.ifd is a C array (a tuple in Swift).
ExifContent *shim_exif_data_ifd(ExifData *data, ExifIfd ifd);

// ---- Fetch: Content-Encoding (decoder.c) ----
// A streaming decoder for one HTTP content coding: gzip (or x-gzip), deflate (zlib-wrapped or raw) or br.
// NULL for any other coding (or when out of memory).
typedef struct shim_decoder shim_decoder;
shim_decoder *shim_decoder_new(const char *encoding);
// Decodes from *in (*in_left bytes, both advanced past what was used) into `out`, whose capacity is *out_len on
// entry and which holds *out_len decoded bytes on return. Returns 0 when all input was used and more is needed,
// 1 when `out` is full (call again, with the remaining input or none), 2 when the compressed stream has ended
// with all input used (a gzip body may still go on with another member: call again with more input),
// 3 when input follows the end of the stream (left in *in: data after the end), -1 when the data is corrupt.
int shim_decoder_run(shim_decoder *decoder, const unsigned char **in, size_t *in_left, unsigned char *out, size_t *out_len);
void shim_decoder_free(shim_decoder *decoder);

// ---- Library (storage) ----
// renameat2(2) with RENAME_NOREPLACE: fails with EEXIST instead of replacing a file.
int shim_rename_noreplace(const char *from, const char *to);
// The same into the folder open as `to_folder` (no path walk: no symbolic link followed there).
int shim_renameat_noreplace(const char *from, int to_folder, const char *to_name);
// Sets (on != 0) or clears O_DIRECT on an open descriptor; -1 when the file
// system refuses it (tmpfs...).
int shim_set_direct_io(int fd, int on);
// ---- Signals ----
// A pipe for shim_signal_forward: both ends close-on-exec (set atomically), the
// write end non-blocking, so a handler never waits. 0, or -1 with errno.
int shim_signal_pipe(int fds[2]);
// Installs a handler for `number` that writes the signal's number, as one byte,
// to `fd` (one descriptor for every signal forwarded; make it non-blocking).
int shim_signal_forward(int number, int fd);
// ---- Metadata ----
// Loads an EXIF block ("Exif\0\0" followed by a TIFF structure) into a new
// ExifData with EXIF_DATA_OPTION_FOLLOW_SPECIFICATION and
// EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS unset (nothing invented, nothing
// dropped). libexif's corrupt-data messages are written, one per line and
// NUL-terminated, into `warnings` (at most `warnings_size` bytes).
// Returns NULL only when out of memory; free with exif_data_unref.
ExifData *shim_exif_load(const unsigned char *data, unsigned int size, char *warnings, size_t warnings_size);
// Inflates zlib-compressed data (PNG zTXt/iTXt text) with zlib. Returns a malloc'd buffer of *out_size bytes (free with
// shim_free), or NULL when the data is not valid zlib, is cut short, or would
// inflate past `limit` bytes (then *too_large is set to 1, else 0).
unsigned char *shim_zlib_inflate(const unsigned char *data, size_t size, size_t limit, size_t *out_size, int *too_large);
void shim_free(void *pointer);


// ---- libvips: thumbnails (Thumbnails area) ----
// libvips is loaded with dlopen by shim_vips_setup_batch (see vips.c): call it
// first; no other shim_vips_* function may run before it succeeds.
// One-time setup for batch work: loads libvips, one malloc arena and fixed
// mmap/trim thresholds (so freed image buffers leave the heap), vips_init, no
// operation cache, untrusted loaders (ImageMagick...) blocked, libvips'
// per-tile warnings silenced; then sets the per-image concurrency.
// Returns NULL on success, else a message saying what failed.
const char *shim_vips_setup_batch(int concurrency);
// Takes (and clears) libvips' error text as a malloc'd string (free with
// shim_free), or NULL when there is none.
char *shim_vips_take_error(void);
// Hands memory freed inside the heap back to the system (malloc_trim), so the
// holes one image's buffers leave do not add up across images.
void shim_release_free_memory(void);
// Header-only open (no pixels decoded until asked); NULL on failure.
VipsImage *shim_vips_open_header(const char *path);
// Size as stored, whether EXIF orientation swaps width and height.
int shim_vips_width(VipsImage *image);
int shim_vips_height(VipsImage *image);
int shim_vips_orientation_swap(VipsImage *image);
// Renders a (lazy) image into memory; NULL on failure.
VipsImage *shim_vips_copy_memory(VipsImage *image);
// Savers; keep_metadata 0 strips everything (no GPS in thumbnails). 0 on success.
int shim_vips_jpegsave(VipsImage *in, const char *path, int quality, int keep_metadata);
int shim_vips_webpsave(VipsImage *in, const char *path, int quality, int keep_metadata);
int shim_vips_avifsave(VipsImage *in, const char *path, int quality, int keep_metadata);
// Shrink-on-load thumbnail, never enlarging, EXIF orientation applied; with
// has_icc, colour is transformed from the embedded ICC profile to sRGB (without
// one, libvips 8.14's fallback import shifts saturated colours, so it is not
// asked for). crop: 0 none, 1 centre, 2 attention. Fails on truncated input.
// 0 on success.
int shim_vips_thumbnail_srgb(const char *path, VipsImage **out, int width, int height, int crop, int has_icc);
// Whether an image carries an embedded ICC profile.
int shim_vips_has_icc(VipsImage *image);
// Resizes an already decoded, upright sRGB image (no rotation, no colour
// transform), never enlarging. 0 on success.
int shim_vips_thumbnail_derived(VipsImage *in, VipsImage **out, int width, int height, int crop);
// Makes `in` saveable as 8-bit sRGB (or grey): converts other spaces and
// depths; with flatten_alpha, puts white behind transparent parts. 0 on success.
int shim_vips_to_srgb8(VipsImage *in, VipsImage **out, int flatten_alpha);
// Drops a reference to a vips image (g_object_unref is fine too; typed for Swift).
void shim_vips_unref(VipsImage *image);
// An upright, in-memory image of what LibRaw made (a JPEG preview decoded at a DCT
// scale of 1/shrink, or plain 8-bit pixels), turned by the EXIF `orientation`
// (1, 3, 6 or 8); a JPEG over `max_pixels` once shrunk is refused before decoding.
// NULL on failure (the reason is in libvips' error buffer).
VipsImage *shim_vips_from_raw(const shim_raw_image *image, int shrink, int orientation, int64_t max_pixels);
// Like shim_vips_thumbnail_srgb for a JPEG, but decoded at a DCT scale of
// 1/shrink (1, 2, 4 or 8) chosen by the caller (libvips' own choice leaves a
// factor of two more pixels than needed), then resized, rotated and colour
// converted by vips_thumbnail_image. 0 on success.
int shim_vips_thumbnail_jpeg(const char *path, VipsImage **out, int width, int height, int crop, int has_icc,
                             int shrink);
// Whether a header-opened image came from the JPEG loader.
int shim_vips_is_jpeg(VipsImage *image);
// What a header-opened image says about the memory its decode takes.
typedef struct shim_vips_header {
    int width, height, bands;
    // Bytes per band of a pixel as decoded (1 for 8-bit, 2 for 16-bit...).
    int bytes_per_sample;
    // libvips' "interlaced" field: an interlaced PNG or GIF, a progressive JPEG.
    int interlaced;
    // The loader's name ("jpegload", "pngload"...; NUL-terminated, cut to fit), "" if unknown.
    char loader[32];
    // JPEG only: "4:2:0", "4:4:4"...; "" otherwise.
    char chroma_subsample[16];
} shim_vips_header;
void shim_vips_header_info(VipsImage *image, shim_vips_header *out);

#endif
