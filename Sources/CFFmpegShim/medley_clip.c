/* A stretch of a movie as evenly timed RGB pictures (medley_movie_clip, medley_movie.h): what
 * `ffmpeg -ss F -t D -i in -vf fps=R,scale=W:H:flags=lanczos` hands its next filter. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The frame scaled to width × height as packed 8-bit RGB into `out` (width·3 bytes a row), with the
 * frame's own YUV matrix and range. The scaler is kept between frames of one size and format. */
static int clip_scale(struct SwsContext **sws, const AVFrame *frame, int width, int height, uint8_t *scratch,
                      int stride, uint8_t *out, char *error, size_t size) {
    *sws = sws_getCachedContext(*sws, frame->width, frame->height, frame->format, width, height, AV_PIX_FMT_RGB24,
                                SWS_LANCZOS, NULL, NULL, NULL);
    if (!*sws) { snprintf(error, size, "cannot convert %s pictures to RGB", av_get_pix_fmt_name(frame->format)); return -1; }
    int *inverse, *table, source_full, destination_full, brightness, contrast, saturation;
    if (sws_getColorspaceDetails(*sws, &inverse, &source_full, &table, &destination_full, &brightness, &contrast,
                                 &saturation) >= 0) {
        if (frame->colorspace != AVCOL_SPC_UNSPECIFIED) inverse = (int *)sws_getCoefficients(frame->colorspace);
        if (frame->color_range != AVCOL_RANGE_UNSPECIFIED) source_full = frame->color_range == AVCOL_RANGE_JPEG;
        sws_setColorspaceDetails(*sws, inverse, source_full, table, destination_full, brightness, contrast, saturation);
    }
    uint8_t *planes[4] = {scratch, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    if (sws_scale(*sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides) != height) {
        snprintf(error, size, "cannot scale the picture");
        return -1;
    }
    for (int y = 0; y < height; y++) memcpy(out + (size_t)y * width * 3, scratch + (size_t)y * stride, (size_t)width * 3);
    return 0;
}

int medley_movie_clip(const char *path, double from, double duration, double fps, int width, int height,
                      MedleyClipVisitor visit, void *context, int *rotation, char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    MedleyMovieInput in;
    memset(&in, 0, sizeof in);
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    struct SwsContext *sws = NULL;
    MedleyPictureFilter *sdr = NULL;  /* an HDR movie's pictures tone-mapped before scaling */
    int stride = FFALIGN(width * 3, 64);
    uint8_t *scratch = av_malloc((size_t)stride * height + 64);
    uint8_t *held = malloc((size_t)width * height * 3);
    int status = -1, emitted = 0, have = 0, errors = 0, flushing = 0;
    if (!packet || !frame || !scratch || !held) { snprintf(error, size, "out of memory"); goto done; }
    if (!(from >= 0) || !isfinite(from) || from > 1e9 || !(duration > 0) || !isfinite(duration) || !(fps > 0)) {
        snprintf(error, size, "the clip's start, length and frame rate must be numbers > 0");
        goto done;
    }
    if (medley_movie_input_open(&in, path, error, size) < 0) goto done;
    /* FFmpeg chooses its decoder threads: one clip is one file's work. */
    if (medley_movie_open_decoder(&in, in.video, &in.video_decoder, 0, error, size) < 0) goto done;
    AVStream *stream = in.format->streams[in.video];
    *rotation = medley_displayed_rotation(stream, NULL);
    double length = in.format->duration > 0 ? in.format->duration / (double)AV_TIME_BASE : 0;
    if (length > 0 && from >= length) {
        snprintf(error, size, "the clip starts at %.3f s, past the end (the movie lasts %.3f s)", from, length);
        goto done;
    }
    int64_t start = medley_container_start(in.format);
    double base = av_q2d(stream->time_base), origin = start / (double)AV_TIME_BASE;
    if (from > 0) {
        int64_t target = av_rescale_q(start + llround(from * AV_TIME_BASE), AV_TIME_BASE_Q, stream->time_base);
        /* The keyframe at or before the start; frames before it are decoded and dropped. A seek that
         * fails reads from the beginning. */
        if (av_seek_frame(in.format, in.video, target, AVSEEK_FLAG_BACKWARD) >= 0) avcodec_flush_buffers(in.video_decoder);
    }
    /* Output picture n is at n / fps from the start; it shows the last frame whose time, rounded to
     * the output's ticks, is n or less (the fps filter's rounding to the nearest tick). Pictures run
     * while n / fps < duration and a frame is still on screen. */
    int64_t total = (int64_t)ceil(duration * fps - 1e-9);
    double last_end = -1;
    /* The frame on screen so far, scaled only when a picture shows it (most decoded frames are not
     * shown at a lower rate). */
    AVFrame *shown_frame = av_frame_alloc();
    int scaled = 0;
    if (!shown_frame) { snprintf(error, size, "out of memory"); goto done; }
#define EMIT()                                                                                           \
    do {                                                                                                  \
        if (!scaled) {                                                                                    \
            if (medley_picture_tonemap_in_place(&sdr, stream, in.video_decoder, shown_frame, error, size) < 0) goto fail; \
            if (clip_scale(&sws, shown_frame, width, height, scratch, stride, held, error, size) < 0) goto fail; \
            scaled = 1;                                                                                   \
        }                                                                                                 \
        if (visit(context, held, width, height, emitted) != 0) { snprintf(error, size, "stopped"); goto fail; } \
        emitted++;                                                                                        \
    } while (0)
    for (;;) {
        int r = medley_movie_next_video_frame(&in, packet, frame, &flushing, &errors, error, size);
        if (r < 0) goto fail;
        if (r == 0) break;
        int64_t pts = frame->best_effort_timestamp;
        if (pts == AV_NOPTS_VALUE) { av_frame_unref(frame); continue; }
        double t = pts * base - origin - from;
        double shown = medley_frame_duration(frame, stream) * base;
        if (t < -1e-9 && t + shown <= 1e-9) { av_frame_unref(frame); continue; } /* before the start */
        if (t < 0) t = 0;
        int64_t tick = llround(t * fps);
        /* Pictures before this frame's tick show the frame held so far. */
        while (have && emitted < tick && emitted < total) EMIT();
        if (emitted >= total) { av_frame_unref(frame); break; }
        av_frame_unref(shown_frame);
        av_frame_move_ref(shown_frame, frame);
        scaled = 0;
        have = 1;
        last_end = t + shown;
    }
    /* The last frame fills the ticks up to its own end (the fps filter's eof rounding). */
    while (have && emitted < total && emitted < (int64_t)llround(last_end * fps)) EMIT();
#undef EMIT
    av_frame_free(&shown_frame);
    goto decoded;
fail:
    av_frame_free(&shown_frame);
    goto done;
decoded:
    if (emitted == 0) { snprintf(error, size, "no video frame could be decoded after %.3f s", from); goto done; }
    status = (int)(emitted > INT32_MAX ? INT32_MAX : emitted);
done:
    sws_freeContext(sws);
    medley_picture_filter_free(&sdr);
    av_free(scratch);
    free(held);
    av_frame_free(&frame);
    av_packet_free(&packet);
    medley_movie_input_close(&in);
    return status;
}
