/*
 * medley_movie.h — movies through libavformat/libavcodec/libswscale/libswresample: probe a file,
 * decode the frame shown at a time as RGB, re-encode to H.264 + AAC in MP4. FFmpeg's macros and
 * structs stay in the C files. Errors are written as text into the caller's buffer (and their
 * FFmpeg code kept per thread: medley_ffmpeg_take_error_code in medley_ffmpeg.h).
 *
 * One C file per mechanism; each section below names its file. Opening the input, the choice of
 * streams and their decoders are medley_input.c's, shared by all three.
 */
#ifndef MEDLEY_MOVIE_H
#define MEDLEY_MOVIE_H

#include <stddef.h>
#include <stdint.h>

/* ---- medley_probe.c: a movie's headers ---- */

/* What medley_movie_probe reads. Times in seconds; text fields are NUL-terminated. */
typedef struct MedleyMovieInfo {
    double duration;            /* the container's duration (ffprobe format.duration); 0 if unknown */
    double start_time;          /* the container's first timestamp (format.start_time) */
    int width, height;          /* stored (coded, cropped) picture size of the video stream */
    int sar_num, sar_den;       /* pixel aspect ratio; 0/1 when unknown */
    int frame_rate_num, frame_rate_den; /* avg_frame_rate, else r_frame_rate; 0/1 when unknown */
    int64_t bit_rate;           /* whole-file bits/s (format.bit_rate); 0 if unknown */
    int rotation;               /* clockwise degrees to display: 0, 90, 180 or 270 */
    int has_display_matrix;     /* whether rotation came from a display matrix (else the rotate tag) */
    int sample_rate, channels;  /* of the chosen audio stream; 0 without one */
    char format[64];            /* the demuxer's names, e.g. "mov,mp4,m4a,3gp,3g2,mj2" */
    char video_codec[32];       /* codec names as ffprobe prints them: "h264", "vp9", … */
    char audio_codec[32];       /* "" without an audio stream */
    char pixel_format[32];      /* "yuv420p", … */
} MedleyMovieInfo;

/* Called once per container-level tag, in the container's order. */
typedef void (*MedleyMovieTagVisitor)(void *context, const char *key, const char *value);

/* Opens `path`, reads its headers and picks the video stream (the first that is not cover art,
 * preferring the default one) and the best audio stream. Returns 0, or −1 with `error` set. */
int medley_movie_probe(const char *path, MedleyMovieInfo *info, MedleyMovieTagVisitor visit, void *context,
                       char *error, size_t size);

/* ---- medley_frames.c: the frame at a time ---- */

/* Decodes the first frame whose timestamp is at or after `seconds` from the container's start
 * (what `ffmpeg -ss seconds -i path -frames:v 1` returns). When the stream ends first, the last
 * frame is returned if it is still on screen at `seconds`, else it fails. Pixels are 8-bit RGB,
 * rows packed (stride width·3), in stored orientation (no rotation applied). Returns a malloc'd
 * buffer the caller frees with free(), or NULL with `error` set. `time` is the frame's timestamp
 * in seconds from the container's start; `rotation` the clockwise degrees it is displayed turned. */
uint8_t *medley_movie_frame_rgb(const char *path, double seconds, int *width, int *height, double *time,
                                int *rotation, char *error, size_t size);

/* ---- medley_clip.c: a stretch as evenly timed pictures ---- */

/* Called with each picture of a clip: packed 8-bit RGB (width·3 bytes a row), valid during the call.
 * Returns 0 to go on, anything else to stop. */
typedef int (*MedleyClipVisitor)(void *context, const uint8_t *rgb, int width, int height, int64_t index);

/* Decodes `duration` seconds from `from` (container start + from, as `ffmpeg -ss from -t duration -i`)
 * and hands `visit` one picture every 1/fps s (the frame on screen then, as FFmpeg's fps filter picks
 * it), scaled to width × height with Lanczos, stored orientation (`rotation`: the clockwise degrees it
 * is displayed turned). Returns the pictures handed over, or −1 with `error` set. */
int medley_movie_clip(const char *path, double from, double duration, double fps, int width, int height,
                      MedleyClipVisitor visit, void *context, int *rotation, char *error, size_t size);

/* ---- medley_transcode.c: re-encoding to H.264 + AAC in MP4 ---- */

/* How medley_movie_transcode encodes. Sizes are in stored orientation. */
typedef struct MedleyTranscodeSettings {
    int width, height;                   /* output picture size (even) */
    int crop_x, crop_y, crop_width, crop_height; /* the source rectangle scaled to width × height */
    int sar_num, sar_den;                /* output pixel aspect ratio (1/1 for square pixels) */
    int crf;                             /* libx264 constant rate factor */
    int64_t max_bit_rate;                /* VBV cap in bits/s; 0: none */
    int64_t buffer_bits;                 /* VBV buffer in bits; 0: none */
    int gop;                             /* frames between keyframes; 1: every frame; 0: libx264's default */
    const char *x264_preset;             /* "medium", "fast", … */
    int64_t audio_bit_rate;              /* AAC bits/s */
    int audio_sample_rate;               /* AAC sample rate */
    int audio_channels;                  /* AAC channels (the source is mixed to this) */
    int rotation;                        /* clockwise degrees, written as the display matrix when the
                                            source has none of its own (a rotate tag) */
} MedleyTranscodeSettings;

/* Written by medley_movie_transcode. */
typedef struct MedleyTranscodeReport {
    int64_t video_frames;                /* frames encoded */
    int64_t audio_samples;               /* samples per channel encoded */
    int decode_errors;                   /* packets the decoders rejected and skipped */
    int damaged_frames;                  /* video frames the decoder concealed errors in */
    double video_end, audio_end;         /* seconds from the container's start where the decoded
                                            pictures and sound end; 0 when none */
} MedleyTranscodeReport;

/* Re-encodes the video stream (libx264, yuv420p) and the best audio stream (AAC) of `input` into
 * an MP4 at `output` (moov first), with the container tags and the display matrix copied. Returns
 * 0, or −1 with `error` set; the output may then be partial, and the caller deletes it. */
int medley_movie_transcode(const char *input, const char *output, const MedleyTranscodeSettings *settings,
                           MedleyTranscodeReport *report, char *error, size_t size);

#endif
