/* An error's text, and FFmpeg's code behind it kept per thread (medley_ffmpeg_take_error_code in
 * medley_ffmpeg.h): every file of the shim writes its errors through medley_ffmpeg_set_error. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/error.h>
#include <stdio.h>

static _Thread_local int last_error_code;

int medley_ffmpeg_take_error_code(void) {
    int code = last_error_code;
    last_error_code = 0;
    return code;
}

void medley_ffmpeg_note_error_code(int code) { last_error_code = code; }

void medley_ffmpeg_set_error(char *error, size_t size, const char *what, int code) {
    last_error_code = code;
    char text[AV_ERROR_MAX_STRING_SIZE] = "";
    if (code) av_strerror(code, text, sizeof text);
    snprintf(error, size, code ? "%s: %s" : "%s", what, text);
}
