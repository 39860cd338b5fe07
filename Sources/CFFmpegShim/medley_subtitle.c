/* Subtitles: a movie's subtitle tracks carried into the transcoder's and remuxer's output (copied
 * when the container holds their codec, else a text subtitle decoded and re-encoded into the one
 * it holds), a subtitle track written out as an .srt, .vtt or .ass file, and the list of a movie's
 * streams Swift chooses tracks from (medley_movie_streams, medley_movie.h).
 *
 * The conversions follow what FFmpeg 5.1's CLI does with `-c:s mov_text` or `-map 0:s:N out.srt`:
 * the packet is decoded into an AVSubtitle (avcodec_decode_subtitle2), its start moved into the
 * timestamp, encoded (avcodec_encode_subtitle) with the decoder's ASS header handed to the encoder,
 * and written with the cue's duration. Using the same decoders, encoders and muxers in the same
 * order is what makes the extracted files byte-identical to the CLI's. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/avstring.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* avcodec_encode_subtitle writes into a buffer it is given and cannot say how large a cue will be;
 * the CLI gives it 1 MiB, and a cue that does not fit is a damaged one. */
#define SUBTITLE_BUFFER_SIZE (1024 * 1024)

static const AVRational milliseconds = {1, 1000};

/* ---- codecs ---- */

static int codec_has(enum AVCodecID id, int property) {
    const AVCodecDescriptor *descriptor = avcodec_descriptor_get(id);
    return descriptor && (descriptor->props & property);
}

/* Whether `format` takes `codec` as it is. avformat_query_codec says "unknown" (negative) for
 * muxers without a codec list; those are trusted, as the stream copy trusts them. */
static int container_holds(const AVOutputFormat *format, enum AVCodecID codec) {
    return format && avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL) != 0;
}

/* The text codec a container is given when the source's is not held: the muxer's own default
 * (ass in Matroska, webvtt in WebM: what the CLI picks without -c:s), else the first it holds of
 * these (mp4 and mov name no default; both hold mov_text). */
static enum AVCodecID text_codec_for(const AVOutputFormat *format) {
    if (format->subtitle_codec != AV_CODEC_ID_NONE && codec_has(format->subtitle_codec, AV_CODEC_PROP_TEXT_SUB) &&
        container_holds(format, format->subtitle_codec) && avcodec_find_encoder(format->subtitle_codec))
        return format->subtitle_codec;
    static const enum AVCodecID candidates[] = {AV_CODEC_ID_MOV_TEXT, AV_CODEC_ID_WEBVTT, AV_CODEC_ID_ASS,
                                                AV_CODEC_ID_SUBRIP};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
        if (avformat_query_codec(format, candidates[i], FF_COMPLIANCE_NORMAL) > 0 && avcodec_find_encoder(candidates[i]))
            return candidates[i];
    return AV_CODEC_ID_NONE;
}

/* Names, for `why`, a container Medley writes that holds `codec` as it is ("" when none does). */
static const char *holder_of(enum AVCodecID codec, const char *except) {
    static const char *const containers[] = {"mkv", "mp4", "mov", "webm"};
    for (size_t i = 0; i < sizeof containers / sizeof *containers; i++) {
        if (except && av_strcasecmp(except, containers[i]) == 0) continue;
        const AVOutputFormat *format = medley_output_format(containers[i]);
        if (format && avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL) > 0) return containers[i];
    }
    return "";
}

/* Ends `why` (which says what cannot be done) with the container Medley writes that would hold the
 * codec as it is, when there is one. */
static void suggest(char *why, size_t why_size, enum AVCodecID codec, const char *container) {
    const char *holder = holder_of(codec, container);
    if (*holder) av_strlcatf(why, why_size, "; name the output .%s", holder);
    else av_strlcat(why, "; no container Medley writes holds it", why_size);
}

/* ---- a track decoded and re-encoded ---- */

/* Opens the decoder of `in` and an encoder of `target`, and a new stream of `out` for it. The
 * encoder is set up as the CLI sets up a subtitle encoder: microsecond time base, the source
 * stream's canvas size (mov_text scales font sizes by it), the decoder's ASS header (styles the
 * encoder reads, and the header an .ass file is written with). Returns 0 or −1 with `error` set. */
static int open_conversion(MedleySubtitleTrack *track, const AVFormatContext *input, const AVStream *in,
                           AVFormatContext *out, enum AVCodecID target, char *error, size_t size) {
    const AVCodec *decoder = avcodec_find_decoder(in->codecpar->codec_id);
    const AVCodec *encoder = avcodec_find_encoder(target);
    if (!decoder) {
        snprintf(error, size, "this FFmpeg cannot decode %s", avcodec_get_name(in->codecpar->codec_id));
        return -1;
    }
    if (!encoder) { snprintf(error, size, "this FFmpeg cannot encode %s", avcodec_get_name(target)); return -1; }
    AVCodecContext *d = track->decoder = avcodec_alloc_context3(decoder);
    if (!d) { snprintf(error, size, "out of memory"); return -1; }
    int r = avcodec_parameters_to_context(d, in->codecpar);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot read the subtitle parameters", r); return -1; }
    /* Without the packets' time base the decoder leaves the cue's time and duration unset. */
    d->pkt_timebase = in->time_base;
    r = avcodec_open2(d, decoder, NULL);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot start the subtitle decoder", r); return -1; }

    AVCodecContext *e = track->encoder = avcodec_alloc_context3(encoder);
    if (!e) { snprintf(error, size, "out of memory"); return -1; }
    e->time_base = AV_TIME_BASE_Q;
    e->width = in->codecpar->width;
    e->height = in->codecpar->height;
    if (d->subtitle_header) {
        /* The ASS parser reads the header as a string: one byte more, zeroed. An empty one (an ASS
         * track whose header was lost) is still handed over, as the CLI does: the encoders take an
         * empty header, not a missing one. */
        e->subtitle_header = av_mallocz((size_t)d->subtitle_header_size + 1);
        if (!e->subtitle_header) { snprintf(error, size, "out of memory"); return -1; }
        memcpy(e->subtitle_header, d->subtitle_header, (size_t)d->subtitle_header_size);
        e->subtitle_header_size = d->subtitle_header_size;
    }
    if (out->oformat->flags & AVFMT_GLOBALHEADER) e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    r = avcodec_open2(e, encoder, NULL);
    if (r < 0) {
        char what[96];
        snprintf(what, sizeof what, "cannot start the %s subtitle encoder", avcodec_get_name(target));
        medley_ffmpeg_set_error(error, size, what, r);
        return -1;
    }

    AVStream *o = track->out = avformat_new_stream(out, NULL);
    if (!o) { snprintf(error, size, "out of memory"); return -1; }
    r = avcodec_parameters_from_context(o->codecpar, e);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot describe the subtitle stream", r); return -1; }
    o->time_base = e->time_base; /* a wish: the muxer may pick its own when the header is written */
    o->disposition = in->disposition & ~AV_DISPOSITION_ATTACHED_PIC;
    medley_output_copy_stream_tags(in, o);
    track->origin = av_rescale_q(medley_container_start(input), AV_TIME_BASE_Q, in->time_base);
    track->copy.in = in;
    track->copy.out = o;
    track->copy.origin = track->origin;
    track->converted = 1;
    return 0;
}

/* Writes one encoded cue (`data`, `bytes` long) at `pts` (microseconds from the container's start)
 * lasting `duration` ms. A start that goes back is moved on as the CLI's muxing moves it (to the
 * last one, or just after it where the container needs strictly increasing times: MP4 refuses the
 * packet otherwise); a muxer that keeps no timestamps of its own (ass: it orders by ReadOrder) is
 * given them as they are, as the CLI gives them. Returns 0 or −1 with `error` set. */
static int write_cue(MedleySubtitleTrack *track, AVFormatContext *out, const uint8_t *data, int bytes, int64_t pts,
                     uint32_t duration, char *error, size_t size) {
    AVPacket *packet = av_packet_alloc();
    if (!packet || av_new_packet(packet, bytes) < 0) {
        av_packet_free(&packet);
        snprintf(error, size, "out of memory");
        return -1;
    }
    if (bytes > 0) memcpy(packet->data, data, (size_t)bytes);
    AVRational time_base = track->out->time_base;
    packet->pts = packet->dts = av_rescale_q(pts, AV_TIME_BASE_Q, time_base);
    packet->duration = av_rescale_q(duration, milliseconds, time_base);
    MedleyStreamCopy *c = &track->copy;
    if (c->started && !(out->oformat->flags & AVFMT_NOTIMESTAMPS)) {
        int64_t least = c->last_dts + !(out->oformat->flags & AVFMT_TS_NONSTRICT);
        if (packet->dts < least) packet->pts = packet->dts = least;
    }
    c->last_dts = packet->dts;
    c->started = 1;
    packet->stream_index = track->out->index;
    int r = av_interleaved_write_frame(out, packet);
    av_packet_free(&packet);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot write", r); return -1; }
    return 0;
}

/* Encodes a decoded cue and writes it. Returns 1 when written, 0 when there was nothing to write or
 * it could not be (counted as damaged), −1 with `error` set. */
static int write_decoded(MedleySubtitleTrack *track, AVFormatContext *out, AVSubtitle *cue, uint8_t *buffer,
                         char *error, size_t size) {
    if (cue->num_rects == 0) return 0; /* a cue that clears the screen: nothing to write as text */
    if (cue->pts == AV_NOPTS_VALUE) { track->damaged++; return 0; } /* the CLI drops it too */
    /* The encoders want the cue to start at its timestamp: its start offset moves into the pts,
     * and the end is counted from there. */
    int64_t pts = cue->pts + av_rescale_q(cue->start_display_time, milliseconds, AV_TIME_BASE_Q);
    cue->end_display_time -= cue->start_display_time;
    cue->start_display_time = 0;
    cue->pts = pts;
    int bytes = avcodec_encode_subtitle(track->encoder, buffer, SUBTITLE_BUFFER_SIZE, cue);
    if (bytes < 0) { track->damaged++; return 0; }
    if (write_cue(track, out, buffer, bytes, pts, cue->end_display_time, error, size) < 0) return -1;
    return 1;
}

/* Decodes one packet and writes what it holds re-encoded. Returns the cues written (0 or 1: a
 * packet without text, or a damaged one, which is counted), or −1 with `error` set. */
static int convert_packet(MedleySubtitleTrack *track, AVFormatContext *out, AVPacket *packet, uint8_t *buffer,
                          char *error, size_t size) {
    if (packet->pts != AV_NOPTS_VALUE) packet->pts -= track->origin;
    if (packet->dts != AV_NOPTS_VALUE) packet->dts -= track->origin;
    AVSubtitle cue;
    int got = 0;
    int r = avcodec_decode_subtitle2(track->decoder, &cue, &got, packet);
    if (r < 0) { track->damaged++; return 0; } /* the decoder frees what it made */
    if (!got) return 0;
    int written = write_decoded(track, out, &cue, buffer, error, size);
    avsubtitle_free(&cue);
    return written;
}

/* ---- subtitle tracks in a movie's output ---- */

int medley_subtitle_track_open(MedleySubtitleTrack *track, const AVFormatContext *input, const AVStream *in,
                               AVFormatContext *out, const char *container, char *why, size_t why_size, char *error,
                               size_t size) {
    memset(track, 0, sizeof *track);
    track->in = in;
    if (why && why_size) why[0] = '\0';
    const char *extension = container && *container ? container : "mp4";
    enum AVCodecID source = in->codecpar->codec_id;
    if (in->codecpar->codec_type != AVMEDIA_TYPE_SUBTITLE) {
        snprintf(error, size, "stream %d is not a subtitle stream", in->index);
        return -1;
    }
    if (container_holds(out->oformat, source)) {
        if (medley_stream_copy_open(&track->copy, input, in, out, extension, error, size) < 0) return -1;
        track->out = track->copy.out;
        track->origin = track->copy.origin;
        medley_output_copy_stream_tags(in, track->out);
        return 1;
    }
    /* What cannot go in is not an error: the caller leaves the track out and says why. */
    char reason[256];
    const char *codec = avcodec_get_name(source);
    enum AVCodecID target = text_codec_for(out->oformat);
    if (source == AV_CODEC_ID_NONE)
        snprintf(reason, sizeof reason, "subtitle stream %d is in a codec FFmpeg does not know, which .%s cannot hold",
                 in->index, extension);
    else if (codec_has(source, AV_CODEC_PROP_BITMAP_SUB))
        snprintf(reason, sizeof reason, "%s is a picture subtitle .%s cannot hold", codec, extension);
    else if (!codec_has(source, AV_CODEC_PROP_TEXT_SUB))
        snprintf(reason, sizeof reason, "%s subtitles are neither text nor pictures, and .%s cannot hold them", codec,
                 extension);
    else if (target == AV_CODEC_ID_NONE)
        snprintf(reason, sizeof reason, "%s is a text subtitle, and .%s holds no text subtitle codec", codec, extension);
    else if (!avcodec_find_decoder(source))
        snprintf(reason, sizeof reason, "%s is a text subtitle this FFmpeg cannot read, and .%s cannot hold it as it is",
                 codec, extension);
    else
        reason[0] = '\0';
    if (reason[0]) {
        if (why && why_size) {
            snprintf(why, why_size, "%s", reason);
            suggest(why, why_size, source, extension);
        }
        return 0;
    }
    if (open_conversion(track, input, in, out, target, error, size) < 0) {
        medley_subtitle_track_close(track);
        return -1;
    }
    return 1;
}

int medley_subtitle_track_write(MedleySubtitleTrack *track, AVFormatContext *out, AVPacket *packet, char *error,
                                size_t size) {
    if (!track->converted) {
        MedleyTranscodeReport unused = {0};
        double end = 0;
        return medley_stream_copy_write(&track->copy, out, packet, &unused, &end, error, size);
    }
    uint8_t *buffer = av_malloc(SUBTITLE_BUFFER_SIZE);
    if (!buffer) { snprintf(error, size, "out of memory"); return -1; }
    int r = convert_packet(track, out, packet, buffer, error, size);
    av_free(buffer);
    return r < 0 ? -1 : 0;
}

void medley_subtitle_track_close(MedleySubtitleTrack *track) {
    avcodec_free_context(&track->decoder);
    avcodec_free_context(&track->encoder);
}

/* ---- subtitles as files ---- */

/* The CLI's muxer and encoder for each file format Medley writes. */
static int file_format(const char *format, const char **muxer, enum AVCodecID *codec) {
    if (!format) return -1;
    if (av_strcasecmp(format, "srt") == 0) { *muxer = "srt"; *codec = AV_CODEC_ID_SUBRIP; return 0; }
    if (av_strcasecmp(format, "vtt") == 0 || av_strcasecmp(format, "webvtt") == 0) {
        *muxer = "webvtt";
        *codec = AV_CODEC_ID_WEBVTT;
        return 0;
    }
    if (av_strcasecmp(format, "ass") == 0) { *muxer = "ass"; *codec = AV_CODEC_ID_ASS; return 0; }
    return -1;
}

int medley_movie_extract_subtitle(const char *input, int nth, const char *output, const char *format, char *error,
                                  size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    const char *muxer = NULL;
    enum AVCodecID target = AV_CODEC_ID_NONE;
    if (file_format(format, &muxer, &target) < 0) {
        snprintf(error, size, "subtitles are written as srt, vtt or ass, not %s", format ? format : "(none)");
        return -1;
    }
    AVFormatContext *in = NULL, *out = NULL;
    AVPacket *packet = NULL;
    uint8_t *buffer = NULL;
    MedleySubtitleTrack track = {0};
    int result = -1, cues = 0;
    if (medley_input_open(&in, input, "cannot open", error, size) < 0) goto done;
    const AVStream *stream = NULL;
    int count = 0;
    for (unsigned i = 0; i < in->nb_streams; i++) {
        if (in->streams[i]->codecpar->codec_type != AVMEDIA_TYPE_SUBTITLE) continue;
        if (count++ == nth) stream = in->streams[i];
    }
    if (!stream || nth < 0) {
        snprintf(error, size, "there is no subtitle stream %d (the file has %d)", nth, count);
        goto done;
    }
    enum AVCodecID source = stream->codecpar->codec_id;
    if (codec_has(source, AV_CODEC_PROP_BITMAP_SUB)) {
        snprintf(error, size, "%s is a picture subtitle; it cannot be written as text", avcodec_get_name(source));
        goto done;
    }
    if (!codec_has(source, AV_CODEC_PROP_TEXT_SUB)) {
        snprintf(error, size, "%s is not a text subtitle; it cannot be written as text", avcodec_get_name(source));
        goto done;
    }
    int r = avformat_alloc_output_context2(&out, NULL, muxer, output);
    if (r < 0 || !out) { medley_ffmpeg_set_error(error, size, "cannot create the subtitle file", r); goto done; }
    /* Always decoded and re-encoded, even srt from subrip: the CLI does so, and its encoders tidy the
     * text (tags, line ends) in ways a copy would not. */
    if (open_conversion(&track, in, stream, out, target, error, size) < 0) goto done;
    /* A file of its own holds no track tags or dispositions. */
    av_dict_free(&track.out->metadata);
    track.out->disposition = 0;
    /* The other streams are not read at all, as the CLI's -map leaves them: besides the time saved,
     * a damaged block of another stream then cannot make the demuxer lose this stream's packets. */
    for (unsigned i = 0; i < in->nb_streams; i++)
        if ((int)i != stream->index) in->streams[i]->discard = AVDISCARD_ALL;
    packet = av_packet_alloc();
    buffer = av_malloc(SUBTITLE_BUFFER_SIZE);
    if (!packet || !buffer) { snprintf(error, size, "out of memory"); goto done; }
    r = avio_open(&out->pb, output, AVIO_FLAG_WRITE);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot create the file", r); goto done; }
    r = avformat_write_header(out, NULL);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot write the header", r); goto done; }
    int retries = 0;
    for (;;) {
        r = medley_input_read(in, packet, &retries, error, size);
        if (r < 0) goto done;
        if (r == 0) break; /* the end, or where a truncated file stops */
        int written = 0;
        if (packet->stream_index == stream->index) written = convert_packet(&track, out, packet, buffer, error, size);
        av_packet_unref(packet);
        if (written < 0) goto done;
        cues += written;
    }
    r = av_write_trailer(out);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot finish the file", r); goto done; }
    r = avio_closep(&out->pb);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot finish the file", r); goto done; }
    result = cues;
done:
    av_free(buffer);
    av_packet_free(&packet);
    medley_subtitle_track_close(&track);
    if (out) {
        if (out->pb) avio_closep(&out->pb);
        avformat_free_context(out);
    }
    avformat_close_input(&in);
    return result;
}

/* ---- a movie's streams ---- */

/* Copies `from` into `to` whole, or cut short before a character that would not fit whole: the
 * Swift side reads these as UTF-8. */
static void copy_utf8(char *to, size_t size, const char *from) {
    if (!size) return;
    size_t length = from ? strlen(from) : 0;
    if (length >= size) {
        length = size - 1;
        while (length > 0 && ((unsigned char)from[length] & 0xC0) == 0x80) length--;
    }
    if (length) memcpy(to, from, length);
    to[length] = '\0';
}

int medley_movie_streams(const char *path, MedleyStreamVisitor visit, void *context, int *chapters, char *error,
                         size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    if (chapters) *chapters = 0;
    AVFormatContext *format = NULL;
    if (medley_input_open(&format, path, "cannot open", error, size) < 0) return -1;
    if (chapters) *chapters = (int)format->nb_chapters;
    for (unsigned i = 0; i < format->nb_streams && visit; i++) {
        const AVStream *s = format->streams[i];
        const AVCodecParameters *par = s->codecpar;
        MedleyStreamInfo info;
        memset(&info, 0, sizeof info);
        info.index = s->index;
        switch (par->codec_type) {
        case AVMEDIA_TYPE_VIDEO: info.kind = 0; break;
        case AVMEDIA_TYPE_AUDIO: info.kind = 1; break;
        case AVMEDIA_TYPE_SUBTITLE: info.kind = 2; break;
        case AVMEDIA_TYPE_ATTACHMENT: info.kind = 3; break;
        case AVMEDIA_TYPE_DATA: info.kind = 4; break;
        default: info.kind = 5; break;
        }
        /* ffprobe's codec_name: the descriptor's name, "unknown" without one. */
        const AVCodecDescriptor *descriptor = avcodec_descriptor_get(par->codec_id);
        copy_utf8(info.codec, sizeof info.codec, descriptor ? descriptor->name : "unknown");
        const AVDictionaryEntry *tag = av_dict_get(s->metadata, "language", NULL, 0);
        copy_utf8(info.language, sizeof info.language, tag ? tag->value : "");
        tag = av_dict_get(s->metadata, "title", NULL, 0);
        /* Matroska attachments are named by their file name. */
        if (!tag && par->codec_type == AVMEDIA_TYPE_ATTACHMENT) tag = av_dict_get(s->metadata, "filename", NULL, 0);
        copy_utf8(info.title, sizeof info.title, tag ? tag->value : "");
        info.is_default = !!(s->disposition & AV_DISPOSITION_DEFAULT);
        info.is_forced = !!(s->disposition & AV_DISPOSITION_FORCED);
        info.is_hearing_impaired = !!(s->disposition & AV_DISPOSITION_HEARING_IMPAIRED);
        info.is_attached_pic = !!(s->disposition & AV_DISPOSITION_ATTACHED_PIC);
        info.is_text = par->codec_type == AVMEDIA_TYPE_SUBTITLE && codec_has(par->codec_id, AV_CODEC_PROP_TEXT_SUB);
        if (par->codec_type == AVMEDIA_TYPE_AUDIO) {
            info.channels = par->ch_layout.nb_channels;
            info.sample_rate = par->sample_rate;
        }
        if (par->codec_type == AVMEDIA_TYPE_VIDEO || par->codec_type == AVMEDIA_TYPE_SUBTITLE) {
            info.width = par->width;
            info.height = par->height;
        }
        info.bit_rate = par->bit_rate > 0 ? par->bit_rate : 0;
        /* Matroska states a track's rate in its statistics tags (mkvmerge writes BPS). */
        tag = av_dict_get(s->metadata, "BPS", NULL, 0);
        if (!info.bit_rate && tag) info.bit_rate = strtoll(tag->value, NULL, 10);
        if (info.bit_rate < 0) info.bit_rate = 0;
        if (par->codec_type == AVMEDIA_TYPE_ATTACHMENT) info.attached_bytes = par->extradata_size;
        visit(context, &info);
    }
    avformat_close_input(&format);
    return 0;
}
