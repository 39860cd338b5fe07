/* Reading a file's headers without decoding: which kinds of stream it holds (medley_probe_streams,
 * medley_ffmpeg.h) and a movie's facts (medley_movie_probe, medley_movie.h).
 *
 * They are two questions, not one probe twice. medley_probe_streams sniffs: it never fails for a
 * missing kind, and counts any audio stream (one whose channels or rate the headers do not state
 * too). medley_movie_probe describes the movie Medley will decode: it fails without a video stream
 * or its picture size, and describes the audio stream av_find_best_stream picks beside the video
 * (which skips audio streams without channels or rate). What they share — the one open, the choice
 * of the video stream — is medley_input.c's. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- which kinds of stream ---- */

int medley_probe_streams(const char *path, int *has_video, int *has_audio) {
    av_log_set_level(AV_LOG_QUIET);
    AVFormatContext *format = NULL;
    *has_video = 0;
    *has_audio = 0;
    if (medley_input_open(&format, path, NULL, NULL, 0) < 0) return -1;
    *has_video = medley_input_pick_video(format) >= 0;
    for (unsigned i = 0; i < format->nb_streams; i++)
        if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) *has_audio = 1;
    avformat_close_input(&format);
    return 0;
}

/* ---- a movie's facts ---- */

static void copy_text(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from ? from : "");
}

/* Adds `language` to the ", "-separated list in `list` unless it is there; a list that would not
 * fit whole is left as it is. */
static void add_language(char *list, size_t size, const char *language) {
    if (!language || !*language || strlen(language) > 15) return;
    size_t length = strlen(list), word = strlen(language);
    for (const char *at = list; (at = strstr(at, language)); at += word)
        if ((at == list || at[-1] == ' ') && (at[word] == ',' || at[word] == '\0')) return;
    if (length + word + 3 > size) return;
    snprintf(list + length, size - length, "%s%s", length ? ", " : "", language);
}

int medley_movie_probe(const char *path, MedleyMovieInfo *info, MedleyMovieTagVisitor visit, void *context,
                       char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    memset(info, 0, sizeof *info);
    MedleyMovieInput in;
    int result = -1;
    if (medley_movie_input_open(&in, path, error, size) < 0) goto done;
    const AVFormatContext *f = in.format;
    const AVStream *v = f->streams[in.video];
    if (f->duration != AV_NOPTS_VALUE && f->duration > 0) info->duration = f->duration / (double)AV_TIME_BASE;
    else if (v->duration != AV_NOPTS_VALUE && v->duration > 0) info->duration = v->duration * av_q2d(v->time_base);
    info->start_time = f->start_time == AV_NOPTS_VALUE ? 0 : f->start_time / (double)AV_TIME_BASE;
    info->video_stream = in.video;
    info->field_order = v->codecpar->field_order;
    info->chapters = (int)f->nb_chapters;
    for (unsigned i = 0; i < f->nb_streams; i++) {
        const AVStream *s = f->streams[i];
        const AVDictionaryEntry *language = av_dict_get(s->metadata, "language", NULL, 0);
        if (s->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) {
            info->audio_tracks++;
            add_language(info->audio_languages, sizeof info->audio_languages, language ? language->value : NULL);
        } else if (s->codecpar->codec_type == AVMEDIA_TYPE_SUBTITLE) {
            info->subtitle_tracks++;
            add_language(info->subtitle_languages, sizeof info->subtitle_languages, language ? language->value : NULL);
        }
    }
    info->transfer = v->codecpar->color_trc;
    info->width = v->codecpar->width;
    info->height = v->codecpar->height;
    AVRational sar = av_guess_sample_aspect_ratio(in.format, (AVStream *)v, NULL);
    info->sar_num = sar.num > 0 && sar.den > 0 ? sar.num : 0;
    info->sar_den = sar.num > 0 && sar.den > 0 ? sar.den : 1;
    AVRational rate = v->avg_frame_rate.num > 0 && v->avg_frame_rate.den > 0 ? v->avg_frame_rate : v->r_frame_rate;
    info->frame_rate_num = rate.num > 0 && rate.den > 0 ? rate.num : 0;
    info->frame_rate_den = rate.num > 0 && rate.den > 0 ? rate.den : 1;
    info->bit_rate = f->bit_rate > 0 ? f->bit_rate : 0;
    const int32_t *matrix = NULL;
    info->rotation = medley_displayed_rotation(v, &matrix);
    info->has_display_matrix = matrix != NULL;
    copy_text(info->format, sizeof info->format, f->iformat->name);
    copy_text(info->video_codec, sizeof info->video_codec, avcodec_get_name(v->codecpar->codec_id));
    const char *pixels = av_get_pix_fmt_name(v->codecpar->format);
    copy_text(info->pixel_format, sizeof info->pixel_format, pixels);
    if (in.audio >= 0) {
        const AVCodecParameters *a = f->streams[in.audio]->codecpar;
        copy_text(info->audio_codec, sizeof info->audio_codec, avcodec_get_name(a->codec_id));
        info->sample_rate = a->sample_rate;
        info->channels = a->ch_layout.nb_channels;
    }
    if (visit) {
        const AVDictionaryEntry *tag = NULL;
        while ((tag = av_dict_get(f->metadata, "", tag, AV_DICT_IGNORE_SUFFIX))) visit(context, tag->key, tag->value);
    }
    result = 0;
done:
    medley_movie_input_close(&in);
    return result;
}
