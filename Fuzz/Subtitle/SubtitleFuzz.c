/* libFuzzer entry point over the subtitle half of CFFmpegShim (medley_subtitle.c): a file of any
 * bytes — an SRT, WebVTT or ASS file beside a movie, or a subtitle-only Matroska file — is listed
 * (medley_movie_streams), then its first subtitle stream written out as SRT, WebVTT and ASS
 * (medley_movie_extract_subtitle: decode, re-time, re-encode), the code a `subtitles: {beside,
 * extract}` job runs on files Medley did not make. Built by scripts/fuzz.sh with clang over the
 * shim's C files (FFmpeg itself is not instrumented: its own heap errors still reach ASan).
 * Properties: no crash, leak or ASan report; a file that lists no subtitle stream extracts none. */
#define _GNU_SOURCE
#include "medley_ffmpeg_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int subtitles;

static void count(void *context, const MedleyStreamInfo *stream) {
    (void)context;
    if (stream->kind == 2) subtitles++;
}

/* A file in memory with a path FFmpeg can open: /proc/self/fd/N of a memfd. */
static int memory_file(const char *name, const uint8_t *data, size_t size, char *path, size_t length) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (size && write(fd, data, size) != (ssize_t)size) { close(fd); return -1; }
    snprintf(path, length, "/proc/self/fd/%d", fd);
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char input[64], output[64], error[512];
    int in = memory_file("subtitle-in", data, size, input, sizeof input);
    if (in < 0) return 0;
    subtitles = 0;
    int chapters = 0;
    int listed = medley_movie_streams(input, count, NULL, &chapters, error, sizeof error) == 0;
    static const char *const formats[] = {"srt", "vtt", "ass"};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        int out = memory_file("subtitle-out", NULL, 0, output, sizeof output);
        if (out < 0) break;
        int cues = medley_movie_extract_subtitle(input, 0, output, formats[i], error, sizeof error);
        /* Nothing to extract from a file that lists no subtitle stream. */
        if (listed && subtitles == 0 && cues >= 0) __builtin_trap();
        close(out);
    }
    close(in);
    return 0;
}
