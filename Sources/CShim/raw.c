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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <libraw.h>
#include "raw.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIM_RAW_ASAN 1
#endif
#endif

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
typedef struct shim_raw {
    libraw_data_t *data;
    int data_errors;
    int data_error_offset;
    int out_of_memory;
    double deadline;
} shim_raw;

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

static void shim_raw_close(shim_raw *raw);

static shim_raw *shim_raw_opened(shim_raw *raw, int code, char *error, size_t error_size) {
    if (code != LIBRAW_SUCCESS) {
        shim_raw_say(error, error_size, "LibRaw cannot read it", code);
        shim_raw_close(raw);
        return NULL;
    }
    return raw;
}

static shim_raw *shim_raw_open_file(const char *path, int max_memory_mb, char *error, size_t error_size) {
    shim_raw *raw = shim_raw_new(max_memory_mb, error, error_size);
    return raw ? shim_raw_opened(raw, p_libraw_open_file(raw->data, path), error, error_size) : NULL;
}

static shim_raw *shim_raw_open_buffer(const void *data, size_t size, int max_memory_mb, char *error, size_t error_size) {
    shim_raw *raw = shim_raw_new(max_memory_mb, error, error_size);
    return raw ? shim_raw_opened(raw, p_libraw_open_buffer(raw->data, (void *)data, size), error, error_size) : NULL;
}

static void shim_raw_get_info(shim_raw *raw, shim_raw_info *out) {
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

static int shim_raw_preview(shim_raw *raw, shim_raw_image *out, char *error, size_t error_size) {
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
        p_libraw_dcraw_clear_mem(made);
        if (error && error_size) snprintf(error, error_size, "its preview is in a form shoebox cannot show");
        return -1;
    }
    return 0;
}

static int shim_raw_decode_half(shim_raw *raw, double seconds, shim_raw_image *out, char *error, size_t error_size) {
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
        p_libraw_dcraw_clear_mem(made);
        if (error && error_size) snprintf(error, error_size, "LibRaw's decode is in a form shoebox cannot use");
        return -1;
    }
    return 0;
}

void shim_raw_image_free(shim_raw_image *image) {
    if (!image) return;
    free(image->data);
    memset(image, 0, sizeof *image);
}

static void shim_raw_close(shim_raw *raw) {
    if (!raw) return;
    if (raw->data) p_libraw_close(raw->data);
    free(raw);
}

/* ---- Isolation: every LibRaw call runs in a forked child. ----
   The child writes its answer into a memfd the parent made: a fixed header, then the
   image bytes. It runs only C (LibRaw and this file), never Swift, and leaves with _exit. */

typedef struct shim_raw_answer {
    uint32_t magic;
    int32_t status;
    shim_raw_info info;
    int32_t is_jpeg, width, height, bands;
    uint64_t size;
    char error[256];
} shim_raw_answer;

#define SHIM_RAW_MAGIC 0x52415731u

static int shim_raw_write_all(int fd, const void *bytes, size_t length) {
    const unsigned char *at = bytes;
    while (length > 0) {
        ssize_t written = write(fd, at, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        at += written;
        length -= (size_t)written;
    }
    return 0;
}

static int shim_raw_read_all(int fd, void *bytes, size_t length, off_t offset) {
    unsigned char *at = bytes;
    while (length > 0) {
        ssize_t got = pread(fd, at, length, offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        at += got;
        length -= (size_t)got;
        offset += got;
    }
    return 0;
}

static void shim_raw_child(pid_t parent, int fd, const char *path, const void *data, size_t size,
                           enum shim_raw_job job, int max_memory_mb, double seconds) {
    /* Every handler back to its default: the parent's Ctrl-C and termination handlers are not
       this process's business, and the Swift runtime's crash handler must not run here (on a
       crash caused by a hostile raw it would dump registers and memory to stderr, and on a
       terminal wait 30 s for keystrokes). A crash is a plain signal death the parent reports. */
    for (int number = 1; number < NSIG; number++) {
        if (number != SIGKILL && number != SIGSTOP) signal(number, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(4); /* the parent died before prctl took effect */
    /* No descriptor of the parent's but the answer file: not the catalog's, the journal's,
       sockets or another thread's answer file. (Standard input, output and error stay: LibRaw's
       messages go to callbacks, not to them.) This is damage control, not a sandbox: a child
       taken over by a raw could still open files by name. */
    int closed = (fd > 3 ? close_range(3, (unsigned)fd - 1, 0) : 0) | close_range((unsigned)fd + 1, ~0U, 0);
    if (closed != 0) {
        long most = sysconf(_SC_OPEN_MAX);
        if (most < 0 || most > 1 << 20) most = 1 << 20;
        for (int other = 3; other < most; other++) {
            if (other != fd) close(other);
        }
    }
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    /* Memory: LibRaw's own allocations are capped (max_raw_memory_mb), the rest of the
       process by its address space, this process's as forked plus the budget. (Not under
       AddressSanitizer, whose shadow mappings are terabytes.) */
#ifndef SHIM_RAW_ASAN
    FILE *statm = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (statm) {
        if (fscanf(statm, "%lu", &pages) != 1) pages = 0;
        fclose(statm);
    }
    if (pages > 0) {
        /* Headroom: 256 MB, and for each of LibRaw's OpenMP threads a stack and a malloc arena. */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        rlim_t headroom = 256 + 72 * (rlim_t)(cores > 0 ? cores : 1);
        rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)max_memory_mb + headroom) * 1024 * 1024;
        struct rlimit space = { limit, limit };
        setrlimit(RLIMIT_AS, &space);
    }
#endif
    /* A CPU-time backstop besides the parent's clock. */
    struct rlimit cpu = { (rlim_t)seconds + 2, (rlim_t)seconds + 3 };
    setrlimit(RLIMIT_CPU, &cpu);

    /* Fault injection for the tests of this isolation: "crash" or "hang" instead of a preview or decode. */
    const char *fault = getenv("SHOEBOX_LIBRAW_FAULT");
    if (fault && job != SHIM_RAW_INFO) {
        if (strcmp(fault, "crash") == 0) abort();
        if (strcmp(fault, "hang") == 0) for (;;) pause();
    }

    shim_raw_answer answer;
    memset(&answer, 0, sizeof answer);
    answer.magic = SHIM_RAW_MAGIC;
    answer.status = -1;
    shim_raw_image image;
    memset(&image, 0, sizeof image);
    /* "fds": report (as the step's failure) whether a descriptor is left open besides the answer file. */
    if (fault && strcmp(fault, "fds") == 0) {
        int leaked = 0;
        for (int other = 3; other < 4096 && !leaked; other++) {
            leaked = other != fd && fcntl(other, F_GETFD) != -1;
        }
        snprintf(answer.error, sizeof answer.error, "descriptors besides the answer file: %s", leaked ? "some" : "none");
        shim_raw_write_all(fd, &answer, sizeof answer);
        _exit(0);
    }
    shim_raw *raw = path ? shim_raw_open_file(path, max_memory_mb, answer.error, sizeof answer.error)
                         : shim_raw_open_buffer(data, size, max_memory_mb, answer.error, sizeof answer.error);
    if (raw) {
        shim_raw_get_info(raw, &answer.info);
        switch (job) {
        case SHIM_RAW_INFO: answer.status = 0; break;
        case SHIM_RAW_PREVIEW: answer.status = shim_raw_preview(raw, &image, answer.error, sizeof answer.error); break;
        case SHIM_RAW_HALF:
            answer.status = shim_raw_decode_half(raw, seconds, &image, answer.error, sizeof answer.error);
            break;
        }
    }
    if (answer.status == 0 && job != SHIM_RAW_INFO) {
        answer.is_jpeg = image.is_jpeg;
        answer.width = image.width;
        answer.height = image.height;
        answer.bands = image.bands;
        answer.size = image.size;
    }
    int failed = shim_raw_write_all(fd, &answer, sizeof answer);
    if (!failed && answer.status == 0 && image.size > 0) failed = shim_raw_write_all(fd, image.data, image.size);
    /* No cleanup: the process ends here, and LibRaw's state may be damaged. */
    _exit(failed ? 3 : 0);
}

int shim_raw_run(const char *path, const void *data, size_t size, enum shim_raw_job job, int max_memory_mb,
                 double seconds, int64_t max_output_bytes, shim_raw_info *info, shim_raw_image *out,
                 char *error, size_t error_size) {
    memset(info, 0, sizeof *info);
    memset(out, 0, sizeof *out);
    const char *unavailable = shim_raw_setup();
    if (unavailable) {
        snprintf(error, error_size, "%s", unavailable);
        return -1;
    }
    /* The answer file is sealed at its largest allowed size: the child cannot write more. */
    int fd = memfd_create("shoebox-libraw", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)sizeof(shim_raw_answer) + (off_t)(max_output_bytes > 0 ? max_output_bytes : 0)) ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK)) {
        snprintf(error, error_size, "cannot make LibRaw's answer file: %s", strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        snprintf(error, error_size, "cannot start LibRaw's process: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (child == 0) shim_raw_child(parent, fd, path, data, size, job, max_memory_mb, seconds);

    /* Wait for the child, at most `seconds` (and a little for the writing). */
    double deadline = shim_raw_now() + seconds * 1.1 + 1;
    int status = 0, timed_out = 0;
    long pause_ns = 200 * 1000;
    for (;;) {
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child) break;
        if (done < 0 && errno != EINTR) {
            status = -1;
            break;
        }
        if (shim_raw_now() > deadline) {
            kill(child, SIGKILL);
            while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
            timed_out = 1;
            break;
        }
        struct timespec pause = { 0, pause_ns };
        nanosleep(&pause, NULL);
        if (pause_ns < 20 * 1000 * 1000) pause_ns *= 2;
    }
    int result = -1;
    shim_raw_answer answer;
    if (timed_out) {
        snprintf(error, error_size, "LibRaw took longer than %.0f s on it and was stopped", seconds);
    } else if (status == -1) {
        snprintf(error, error_size, "lost LibRaw's process: %s", strerror(errno));
    } else if (WIFSIGNALED(status)) {
        int signal_number = WTERMSIG(status);
        snprintf(error, error_size, "LibRaw %s on it (signal %d, %s); the file is damaged or hostile",
                 signal_number == SIGXCPU ? "ran out of time" : "crashed", signal_number, strsignal(signal_number));
    } else if (WEXITSTATUS(status) != 0) {
        snprintf(error, error_size, "LibRaw's process failed (exit status %d); the file may be damaged",
                 WEXITSTATUS(status));
    } else if (shim_raw_read_all(fd, &answer, sizeof answer, 0) || answer.magic != SHIM_RAW_MAGIC) {
        snprintf(error, error_size, "LibRaw's process gave no answer");
    } else {
        answer.error[sizeof answer.error - 1] = '\0';
        *info = answer.info;
        if (answer.status != 0) {
            snprintf(error, error_size, "%s", answer.error[0] ? answer.error : "LibRaw failed");
        } else if (job == SHIM_RAW_INFO) {
            result = 0;
        } else {
            /* The child may have been subverted by the file: believe nothing unchecked. */
            uint64_t pixels = (uint64_t)(answer.width > 0 ? answer.width : 0) * (uint64_t)(answer.height > 0 ? answer.height : 0);
            int plain_ok = !answer.is_jpeg && (answer.bands == 1 || answer.bands == 3) && answer.width > 0 &&
                           answer.height > 0 && answer.width <= 65535 && answer.height <= 65535 &&
                           answer.size == pixels * (uint64_t)answer.bands;
            int jpeg_ok = answer.is_jpeg && answer.size >= 4;
            if (!plain_ok && !jpeg_ok) {
                snprintf(error, error_size, "LibRaw's answer does not add up (%dx%d, %d bands, %llu bytes)",
                         answer.width, answer.height, answer.bands, (unsigned long long)answer.size);
            } else if (answer.size > (uint64_t)max_output_bytes) {
                snprintf(error, error_size, "LibRaw's %s takes %llu bytes, over the %lld allowed",
                         answer.is_jpeg ? "preview" : "decode", (unsigned long long)answer.size, (long long)max_output_bytes);
            } else {
                unsigned char *bytes = malloc(answer.size);
                if (!bytes) {
                    snprintf(error, error_size, "out of memory for LibRaw's %llu bytes", (unsigned long long)answer.size);
                } else if (shim_raw_read_all(fd, bytes, answer.size, sizeof answer)) {
                    free(bytes);
                    snprintf(error, error_size, "LibRaw's answer is cut short");
                } else {
                    out->data = bytes;
                    out->size = answer.size;
                    out->is_jpeg = answer.is_jpeg;
                    out->width = answer.is_jpeg ? 0 : answer.width;
                    out->height = answer.is_jpeg ? 0 : answer.height;
                    out->bands = answer.is_jpeg ? 0 : answer.bands;
                    result = 0;
                }
            }
        }
    }
    close(fd);
    return result;
}
