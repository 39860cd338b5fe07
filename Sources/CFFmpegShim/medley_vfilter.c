/* Pictures through libavfilter: the transcoder's picture filter (medley_picture_filter_*,
 * medley_ffmpeg_internal.h) deinterlaces with bwdif, tone-maps PQ and HLG to BT.709 SDR with zscale
 * and tonemap and hands over 8- or 10-bit 4:2:0; the movie analysis (medley_movie_analyze,
 * medley_movie.h) decodes stretches spread over a movie for idet's field-order verdicts, its black
 * bars and its colour and HDR description. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/avstring.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/intreadwrite.h>
#include <libavutil/log.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The analysis looks at this many consecutive frames a stretch: idet judges a frame against the
 * ones before and after it and its multi-frame verdict settles after a few frames. */
#define FRAMES_PER_SAMPLE 16
/* After a seek, frames already looked at (the keyframe lies before the last stretch's end) or
 * damaged are skipped, up to this many a stretch. */
#define MAX_SKIPPED_FRAMES 300
/* More stretches than this add time, not knowledge. */
#define MAX_SAMPLES 100

/* ---- what streams and frames say ---- */

/* A stream's side data of one type (the container's, e.g. Matroska's MasteringMetadata), or NULL. */
static const uint8_t *stream_side_data(const AVStream *stream, enum AVPacketSideDataType type, size_t *length) {
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                         stream->codecpar->nb_coded_side_data, type);
    if (!sd) return NULL;
    *length = sd->size;
    return sd->data;
#else
    return av_stream_get_side_data(stream, type, length);
#endif
}

static int frame_is_interlaced(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    return (frame->flags & AV_FRAME_FLAG_INTERLACED) != 0;
#else
    return frame->interlaced_frame;
#endif
}

static int frame_is_top_first(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    return (frame->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST) != 0;
#else
    return frame->top_field_first;
#endif
}

/* H.273 lets a stream say "unspecified" and keeps some codes reserved; neither describes pictures. */
static int known_transfer(int v) {
    return v != AVCOL_TRC_UNSPECIFIED && v != AVCOL_TRC_RESERVED0 && v != AVCOL_TRC_RESERVED && v < AVCOL_TRC_NB;
}
static int known_primaries(int v) {
    return v != AVCOL_PRI_UNSPECIFIED && v != AVCOL_PRI_RESERVED0 && v != AVCOL_PRI_RESERVED &&
           (v < AVCOL_PRI_NB || v == AVCOL_PRI_JEDEC_P22);
}
static int known_matrix(int v) { return v != AVCOL_SPC_UNSPECIFIED && v != AVCOL_SPC_RESERVED && v < AVCOL_SPC_NB; }
static int known_range(int v) { return v == AVCOL_RANGE_MPEG || v == AVCOL_RANGE_JPEG; }

/* The first described of a frame's, the decoder's (what it has read in the bitstream) and the
 * container's value; `fallback` when none is. */
static int described(int frame, int decoder, int stream, int (*known)(int), int fallback) {
    if (known(frame)) return frame;
    if (known(decoder)) return decoder;
    if (known(stream)) return stream;
    return fallback;
}

static int is_hdr_transfer(int transfer) {
    return transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67;
}

/* ---- filter graphs: a buffer source, a chain, a buffer sink ---- */

typedef struct Graph {
    AVFilterGraph *graph;
    AVFilterContext *source, *sink;
    int width, height, format;   /* the pictures the source was set up for */
    int tone_maps;               /* whether the chain tone-maps (the picture filter's) */
} Graph;

static void graph_free(Graph *g) {
    avfilter_graph_free(&g->graph);
    g->source = g->sink = NULL;
}

/* Builds buffer → `chain` → buffersink for pictures like `frame` whose timestamps count in
 * `time_base`. Returns 0, or −1 with `error` set and nothing left allocated. */
static int graph_open(Graph *g, const AVFrame *frame, AVRational time_base, const char *chain, char *error,
                      size_t size) {
    memset(g, 0, sizeof *g);
    AVFilterInOut *outputs = NULL, *inputs = NULL;
    AVBufferSrcParameters *parameters = NULL;
    const AVFilter *buffer = avfilter_get_by_name("buffer"), *buffersink = avfilter_get_by_name("buffersink");
    if (!buffer || !buffersink) { snprintf(error, size, "this FFmpeg's libavfilter has no buffer filters"); return -1; }
    g->graph = avfilter_graph_alloc();
    if (!g->graph) goto out_of_memory;
    /* 0: one thread a core for the filters that work in slices (bwdif, zscale, tonemap); must be
     * set before filters are added. */
    g->graph->nb_threads = 0;
    g->source = avfilter_graph_alloc_filter(g->graph, buffer, "in");
    parameters = av_buffersrc_parameters_alloc();
    if (!g->source || !parameters) goto out_of_memory;
    parameters->format = frame->format;
    parameters->width = frame->width;
    parameters->height = frame->height;
    parameters->time_base = time_base;
    parameters->sample_aspect_ratio = frame->sample_aspect_ratio;
    int r = av_buffersrc_parameters_set(g->source, parameters);
    av_freep(&parameters);
    if (r >= 0) r = avfilter_init_str(g->source, NULL);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot set up the picture filters' source", r); goto fail; }
    r = avfilter_graph_create_filter(&g->sink, buffersink, "out", NULL, NULL, g->graph);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot set up the picture filters' sink", r); goto fail; }

    /* The chain's open input is fed by the source ("in"), its open output feeds the sink ("out"). */
    outputs = avfilter_inout_alloc();
    inputs = avfilter_inout_alloc();
    if (!outputs || !inputs) goto out_of_memory;
    outputs->name = av_strdup("in");
    outputs->filter_ctx = g->source;
    inputs->name = av_strdup("out");
    inputs->filter_ctx = g->sink;
    if (!outputs->name || !inputs->name) goto out_of_memory;
    r = avfilter_graph_parse_ptr(g->graph, chain, &inputs, &outputs, NULL);
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    if (r >= 0) r = avfilter_graph_config(g->graph, NULL);
    if (r < 0) {
        char what[512];
        snprintf(what, sizeof what, "cannot set up the picture filters %s for %d×%d %s pictures", chain, frame->width,
                 frame->height, av_get_pix_fmt_name(frame->format) ? av_get_pix_fmt_name(frame->format) : "?");
        medley_ffmpeg_set_error(error, size, what, r);
        goto fail;
    }
    g->width = frame->width;
    g->height = frame->height;
    g->format = frame->format;
    return 0;
out_of_memory:
    snprintf(error, size, "out of memory");
fail:
    av_freep(&parameters);
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    graph_free(g);
    return -1;
}

static int graph_fits(const Graph *g, const AVFrame *frame) {
    return g->width == frame->width && g->height == frame->height && g->format == frame->format;
}

/* ---- the picture filter ---- */

struct MedleyPictureFilter {
    const AVStream *stream;            /* borrowed: the caller's input outlives the filter */
    const AVCodecContext *decoder;     /* borrowed, may be NULL */
    int deinterlace, ten_bit;
    char tonemap[16];                  /* the curve, "" for none */
    char *burn;                        /* "subtitles=…:si=N," escaped for a filter description; NULL: none */
    Graph current;
    Graph draining;                    /* the graph before a change of picture size or format, at its
                                          end: its last frames are received before the current's */
    int ended;                         /* the end was sent into the current graph */
    AVFrame *staged;                   /* the caller's frame, referenced and described for the source */
};

/* The tonemap filter's curves (tonemap=none would only clip, and is not asked for by name). */
static const char *const curves[] = {"hable", "mobius", "reinhard", "clip", "linear", "gamma"};

int medley_picture_filter_open(MedleyPictureFilter **filter, const AVStream *stream, const AVCodecContext *decoder,
                               const MedleyPictureFilterSpec *spec, char *error, size_t size) {
    *filter = NULL;
    const char *curve = NULL;
    if (spec->tonemap) {
        /* Only the known names: the name goes into a filter description, where ':' or ',' would
         * add options or filters. */
        for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
            if (strcmp(spec->tonemap, curves[i]) == 0) curve = curves[i];
        if (!curve) { snprintf(error, size, "unknown tone-mapping curve \"%s\"", spec->tonemap); return -1; }
    }
    /* A missing filter is said plainly here rather than as "Invalid argument" at the first frame
     * (zscale is there only when FFmpeg was built with libzimg). */
    const char *needed[] = {"buffer", "buffersink", "format", spec->deinterlace ? "bwdif" : NULL,
                            curve ? "zscale" : NULL, curve ? "tonemap" : NULL,
                            spec->subtitles_file ? "subtitles" : NULL};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (needed[i] && !avfilter_get_by_name(needed[i])) {
            snprintf(error, size, "this FFmpeg has no %s filter", needed[i]);
            return -1;
        }
    if (stream->time_base.num <= 0 || stream->time_base.den <= 0) {
        snprintf(error, size, "the video stream has no time base");
        return -1;
    }
    MedleyPictureFilter *f = calloc(1, sizeof *f);
    if (!f) { snprintf(error, size, "out of memory"); return -1; }
    f->stream = stream;
    f->decoder = decoder;
    f->deinterlace = spec->deinterlace != 0;
    f->ten_bit = spec->ten_bit != 0;
    if (curve) snprintf(f->tonemap, sizeof f->tonemap, "%s", curve);
    if (spec->subtitles_file) {
        /* A path goes through two levels of escaping: as the option's value (':' and quotes), then
         * as part of the filter description (',', ';', brackets, quotes), as libavfilter's
         * documentation lays out. */
        char *value = NULL, *described = NULL;
        if (av_escape(&value, spec->subtitles_file, "':\\", AV_ESCAPE_MODE_BACKSLASH, 0) >= 0 &&
            av_escape(&described, value, "'\\[],;", AV_ESCAPE_MODE_BACKSLASH, 0) >= 0)
            f->burn = av_asprintf("subtitles=filename=%s:si=%d,", described, spec->subtitles_stream);
        av_free(value);
        av_free(described);
    }
    f->staged = av_frame_alloc();
    if (!f->staged || (spec->subtitles_file && !f->burn)) {
        av_frame_free(&f->staged);
        av_free(f->burn);
        free(f);
        snprintf(error, size, "out of memory");
        return -1;
    }
    *filter = f;
    return 0;
}

void medley_picture_filter_free(MedleyPictureFilter **filter) {
    MedleyPictureFilter *f = *filter;
    if (!f) return;
    graph_free(&f->current);
    graph_free(&f->draining);
    av_frame_free(&f->staged);
    av_free(f->burn);
    free(f);
    *filter = NULL;
}

/* Copies the stream's HDR description onto a frame that lacks it: tonemap takes the signal's peak
 * from the frame's content light level or mastering display (else assumes one), and FFmpeg 5.1's
 * decoders attach only what the bitstream's SEI carries, not what the container says. */
static int add_stream_side_data(AVFrame *frame, const AVStream *stream, enum AVPacketSideDataType from,
                                enum AVFrameSideDataType to, size_t expected) {
    if (av_frame_get_side_data(frame, to)) return 0;
    size_t length = 0;
    const uint8_t *data = stream_side_data(stream, from, &length);
    if (!data || length < expected) return 0;
    AVFrameSideData *sd = av_frame_new_side_data(frame, to, length);
    if (!sd) return -1;
    memcpy(sd->data, data, length);
    return 0;
}

/* The filters for one kind of picture. bwdif first: it needs the fields as they were coded, before
 * any conversion. The tone-mapping recipe is the one in common use: to linear light with 100 cd/m²
 * as SDR's white (npl), to float RGB, to BT.709 primaries in linear light, compress the highlights
 * with the curve (desat=0: highlights keep their colour, not drift to white), then to BT.709's
 * transfer and matrix in limited range. */
static char *chain_for(const MedleyPictureFilter *f, int tone_maps) {
    /* Subtitles are drawn last, on the picture as it will be shown (SDR after tone mapping). */
    return av_asprintf("%s%s%s%s%s%s",
                       f->deinterlace ? "bwdif=mode=send_frame:parity=auto:deint=all," : "",
                       tone_maps ? "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=" : "",
                       tone_maps ? f->tonemap : "", tone_maps ? ":desat=0,zscale=t=bt709:m=bt709:r=tv," : "",
                       f->burn ? f->burn : "", f->ten_bit ? "format=yuv420p10le" : "format=yuv420p");
}

int medley_picture_filter_send(MedleyPictureFilter *f, AVFrame *frame, char *error, size_t size) {
    int r;
    if (!frame) {
        if (f->current.graph && !f->ended) {
            r = av_buffersrc_add_frame_flags(f->current.source, NULL, 0);
            if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot end the picture filters", r); return -1; }
        }
        f->ended = 1;
        return 0;
    }
    if (f->ended) { snprintf(error, size, "a picture was sent to the picture filter after its end"); return -1; }
    if (frame->width <= 0 || frame->height <= 0) { snprintf(error, size, "a picture without a size"); return -1; }
    AVFrame *staged = f->staged;
    r = av_frame_ref(staged, frame);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot reference the picture", r); return -1; }
    /* The transcoder times pictures by best_effort_timestamp (the pts, or guessed from the dts). */
    if (frame->best_effort_timestamp != AV_NOPTS_VALUE) staged->pts = frame->best_effort_timestamp;

    /* zscale reads the colour description from each frame and cannot convert from "unspecified":
     * what the frame leaves out comes from the decoder, then the container. */
    const AVCodecParameters *par = f->stream->codecpar;
    const AVCodecContext *d = f->decoder;
    staged->color_trc = described(frame->color_trc, d ? d->color_trc : AVCOL_TRC_UNSPECIFIED, par->color_trc,
                                  known_transfer, AVCOL_TRC_UNSPECIFIED);
    int tone_maps = f->tonemap[0] && is_hdr_transfer(staged->color_trc);
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(frame->format);
    int rgb = desc && (desc->flags & AV_PIX_FMT_FLAG_RGB);
    /* PQ and HLG come with BT.2020 (HDR10 and BT.2100 define them so): a PQ or HLG picture that
     * says nothing more is taken as BT.2020 non-constant luminance in limited range. */
    staged->color_primaries = described(frame->color_primaries, d ? d->color_primaries : AVCOL_PRI_UNSPECIFIED,
                                        par->color_primaries, known_primaries,
                                        tone_maps ? AVCOL_PRI_BT2020 : AVCOL_PRI_UNSPECIFIED);
    staged->colorspace = described(frame->colorspace, d ? d->colorspace : AVCOL_SPC_UNSPECIFIED, par->color_space,
                                   known_matrix,
                                   rgb ? AVCOL_SPC_RGB : tone_maps ? AVCOL_SPC_BT2020_NCL : AVCOL_SPC_UNSPECIFIED);
    staged->color_range = described(frame->color_range, d ? d->color_range : AVCOL_RANGE_UNSPECIFIED,
                                    par->color_range, known_range,
                                    tone_maps ? (rgb ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG) : AVCOL_RANGE_UNSPECIFIED);
    if (tone_maps &&
        (add_stream_side_data(staged, f->stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL,
                              sizeof(AVContentLightMetadata)) < 0 ||
         add_stream_side_data(staged, f->stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA,
                              AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, sizeof(AVMasteringDisplayMetadata)) < 0)) {
        av_frame_unref(staged);
        snprintf(error, size, "out of memory");
        return -1;
    }

    /* The buffer source takes one size and format (FFmpeg 5.1 only warns when frames change, and
     * bwdif would mix fields of different pictures): a change ends the graph, whose last frames
     * are received first, and starts a new one. So does a change between HDR and SDR pictures. */
    if (f->current.graph && (!graph_fits(&f->current, staged) || f->current.tone_maps != tone_maps)) {
        if (f->draining.graph) {
            av_frame_unref(staged);
            snprintf(error, size, "the pictures changed size twice without their filtered frames being received");
            return -1;
        }
        r = av_buffersrc_add_frame_flags(f->current.source, NULL, 0);
        if (r < 0) {
            av_frame_unref(staged);
            medley_ffmpeg_set_error(error, size, "cannot end the picture filters", r);
            return -1;
        }
        f->draining = f->current;
        memset(&f->current, 0, sizeof f->current);
    }
    if (!f->current.graph) {
        char *chain = chain_for(f, tone_maps);
        if (!chain) { av_frame_unref(staged); snprintf(error, size, "out of memory"); return -1; }
        r = graph_open(&f->current, staged, f->stream->time_base, chain, error, size);
        av_free(chain);
        if (r < 0) {
            av_frame_unref(staged);
            return -1;
        }
        f->current.tone_maps = tone_maps;
    }
    /* Without KEEP_REF the source takes staged's references (staged is left blank). */
    r = av_buffersrc_add_frame_flags(f->current.source, staged, 0);
    av_frame_unref(staged);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot filter the picture", r); return -1; }
    return 0;
}

/* A frame from `g`'s sink made the transcoder's: timestamps back in the stream's time base (bwdif
 * counts in halves of it), and the colour description of what it now is. */
static void finish_frame(const MedleyPictureFilter *f, const Graph *g, AVFrame *out) {
    AVRational time_base = av_buffersink_get_time_base(g->sink);
    if (out->pts != AV_NOPTS_VALUE) out->pts = av_rescale_q(out->pts, time_base, f->stream->time_base);
    out->best_effort_timestamp = out->pts;
    if (g->tone_maps) {
        out->color_trc = AVCOL_TRC_BT709;
        out->color_primaries = AVCOL_PRI_BT709;
        out->colorspace = AVCOL_SPC_BT709;
        out->color_range = AVCOL_RANGE_MPEG;
        /* The HDR description no longer applies (an encoder given it would mark SDR as HDR). */
        av_frame_remove_side_data(out, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA);
        av_frame_remove_side_data(out, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL);
        av_frame_remove_side_data(out, AV_FRAME_DATA_DYNAMIC_HDR_PLUS);
        av_frame_remove_side_data(out, AV_FRAME_DATA_DOVI_RPU_BUFFER);
        av_frame_remove_side_data(out, AV_FRAME_DATA_DOVI_METADATA);
    }
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 7, 100)
    if (f->deinterlace) out->flags &= ~(AV_FRAME_FLAG_INTERLACED | AV_FRAME_FLAG_TOP_FIELD_FIRST);
#else
    if (f->deinterlace) out->interlaced_frame = out->top_field_first = 0;
#endif
}

int medley_picture_filter_receive(MedleyPictureFilter *f, AVFrame *out, char *error, size_t size) {
    if (f->draining.graph) {
        int r = av_buffersink_get_frame(f->draining.sink, out);
        if (r >= 0) {
            finish_frame(f, &f->draining, out);
            return 1;
        }
        graph_free(&f->draining);
        if (r != AVERROR_EOF && r != AVERROR(EAGAIN)) {
            medley_ffmpeg_set_error(error, size, "cannot filter the picture", r);
            return -1;
        }
    }
    if (!f->current.graph) return 0;
    int r = av_buffersink_get_frame(f->current.sink, out);
    if (r >= 0) {
        finish_frame(f, &f->current, out);
        return 1;
    }
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return 0;
    medley_ffmpeg_set_error(error, size, "cannot filter the picture", r);
    return -1;
}

/* ---- a single picture made SDR (posters, clips, sprite sheets) ---- */

int medley_picture_tonemap_in_place(MedleyPictureFilter **filter, const AVStream *stream, const AVCodecContext *decoder,
                                    AVFrame *frame, char *error, size_t size) {
    int transfer = described(frame->color_trc, decoder ? decoder->color_trc : AVCOL_TRC_UNSPECIFIED,
                             stream->codecpar->color_trc, known_transfer, AVCOL_TRC_UNSPECIFIED);
    if (!is_hdr_transfer(transfer)) return 0;
    if (!*filter) {
        MedleyPictureFilterSpec spec = {0, "hable", 0, NULL, 0};
        if (medley_picture_filter_open(filter, stream, decoder, &spec, error, size) < 0) return -1;
    }
    AVFrame *mapped = av_frame_alloc();
    if (!mapped) { snprintf(error, size, "out of memory"); return -1; }
    /* The tone-mapping chain gives a picture for each it takes; its pictures come out at once. */
    int got = medley_picture_filter_send(*filter, frame, error, size) < 0 ? -1
                                                                          : medley_picture_filter_receive(*filter, mapped, error, size);
    if (got <= 0) {
        av_frame_free(&mapped);
        if (got == 0) snprintf(error, size, "the picture could not be tone-mapped");
        return -1;
    }
    av_frame_unref(frame);
    av_frame_move_ref(frame, mapped);
    av_frame_free(&mapped);
    return 0;
}

/* ---- the analysis: black bars ---- */

/* Where a picture's luma samples are, for the formats whose luma can be read directly: planar and
 * packed YUV and gray, 8 to 16 bits, little-endian (as on every host Medley runs on). */
typedef struct Luma {
    const uint8_t *data;
    int linesize, step, offset, shift, wide, mask;
    int limit;        /* a line whose mean is at most this is dark */
    int bright;       /* a sample above this is picture, not noise in a bar */
} Luma;

static int luma_open(Luma *l, const AVFrame *frame) {
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(frame->format);
    if (!d || d->nb_components < 1 ||
        (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM |
                     AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_BE)))
        return 0;
    const AVComponentDescriptor *c = &d->comp[0];
    if (c->depth < 1 || c->depth > 16 || c->step < (c->depth + c->shift > 8 ? 2 : 1) || !frame->data[c->plane])
        return 0;
    l->data = frame->data[c->plane];
    l->linesize = frame->linesize[c->plane];
    l->step = c->step;
    l->offset = c->offset;
    l->shift = c->shift;
    l->wide = c->depth + c->shift > 8;
    l->mask = (1 << c->depth) - 1;
    /* cropdetect's default threshold, 24 of 255 of the full scale, whatever the depth: above
     * limited range's black (16, 64 in 10 bits), below any picture. */
    l->limit = (24 * l->mask + 127) / 255;
    l->bright = 2 * l->limit;
    return 1;
}

static inline int luma_at(const Luma *l, int x, int y) {
    const uint8_t *p = l->data + (ptrdiff_t)y * l->linesize + (ptrdiff_t)x * l->step + l->offset;
    return ((l->wide ? AV_RL16(p) : p[0]) >> l->shift) & l->mask;
}

/* Whether `n` samples from (x, y) on in steps (dx, dy) are a bar: dark on average (as cropdetect
 * decides) and with hardly any bright sample (so a row of credits or a lone light in a dark scene
 * stays picture: the crop leans towards keeping it). */
static int line_is_dark(const Luma *l, int x, int y, int dx, int dy, int n) {
    int64_t sum = 0;
    int bright = 0, allowed = n / 256;
    for (int i = 0; i < n; i++, x += dx, y += dy) {
        int v = luma_at(l, x, y);
        sum += v;
        if (v > l->bright && ++bright > allowed) return 0;
    }
    return sum <= (int64_t)l->limit * n;
}

/* The picture's extent inside its bars: returns 0 for a picture dark all over (a fade), else 1 with
 * the first and last rows and columns that are picture. */
static int picture_extent(const Luma *l, int width, int height, int *top, int *bottom, int *left, int *right) {
    int t = 0;
    while (t < height && line_is_dark(l, 0, t, 1, 0, width)) t++;
    if (t == height) return 0;
    int b = height - 1;
    while (b > t && line_is_dark(l, 0, b, 1, 0, width)) b--;
    int rows = b - t + 1;
    int x0 = 0;
    while (x0 < width && line_is_dark(l, x0, t, 0, 1, rows)) x0++;
    int x1 = width - 1;
    if (x0 == width) x0 = 0; /* bright rows whose every column is dark on average: no side bars */
    else while (x1 > x0 && line_is_dark(l, x1, t, 0, 1, rows)) x1--;
    *top = t;
    *bottom = b;
    *left = x0;
    *right = x1;
    return 1;
}

/* ---- the analysis ---- */

typedef struct Analysis {
    MedleyMovieAnalysis *a;
    MedleyMovieInput in;
    AVPacket *packet;
    AVFrame *frame, *filtered;
    Graph idet;
    int width, height;              /* the first sampled picture's size: the crop's frame */
    int top, bottom, left, right;   /* the union of the pictures' extents */
    int measured;                   /* pictures whose extent is in it */
    int colour_from_frame;          /* the stream said nothing of its colours: the first frame says */
} Analysis;

/* Counts idet's multi-frame verdict on every frame its graph has ready. */
static int idet_drain(Analysis *s, char *error, size_t size) {
    for (;;) {
        int r = av_buffersink_get_frame(s->idet.sink, s->filtered);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return 0;
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot analyse the pictures", r); return -1; }
        const AVDictionaryEntry *verdict = av_dict_get(s->filtered->metadata, "lavfi.idet.multiple.current_frame",
                                                       NULL, 0);
        if (verdict) {
            if (strcmp(verdict->value, "tff") == 0) s->a->idet_tff++;
            else if (strcmp(verdict->value, "bff") == 0) s->a->idet_bff++;
            else if (strcmp(verdict->value, "progressive") == 0) s->a->idet_progressive++;
            else s->a->idet_undetermined++;
        }
        av_frame_unref(s->filtered);
    }
}

/* Ends a stretch: idet judges its last frame against the one before. */
static int idet_end(Analysis *s, char *error, size_t size) {
    if (!s->idet.graph) return 0;
    int r = av_buffersrc_add_frame_flags(s->idet.source, NULL, 0);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot analyse the pictures", r); return -1; }
    r = idet_drain(s, error, size);
    graph_free(&s->idet);
    return r;
}

static int idet_feed(Analysis *s, AVFrame *frame, char *error, size_t size) {
    if (s->idet.graph && !graph_fits(&s->idet, frame) && idet_end(s, error, size) < 0) return -1;
    if (!s->idet.graph &&
        graph_open(&s->idet, frame, s->in.format->streams[s->in.video]->time_base, "idet", error, size) < 0)
        return -1;
    int r = av_buffersrc_add_frame_flags(s->idet.source, frame, AV_BUFFERSRC_FLAG_KEEP_REF);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot analyse the pictures", r); return -1; }
    return idet_drain(s, error, size);
}

static void read_mastering(MedleyMovieAnalysis *a, const AVMasteringDisplayMetadata *m) {
    /* x265 wants green, blue, red; FFmpeg keeps red, green, blue. */
    static const int order[3] = {1, 2, 0};
    int exact = m->has_primaries && m->has_luminance;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            AVRational v = m->display_primaries[order[i]][j];
            a->master_primaries[2 * i + j] = m->has_primaries && v.den ? av_q2d(v) : 0;
            if (v.den <= 0) exact = 0;
        }
    for (int j = 0; j < 2; j++) {
        a->master_white[j] = m->has_primaries && m->white_point[j].den ? av_q2d(m->white_point[j]) : 0;
        if (m->white_point[j].den <= 0) exact = 0;
    }
    a->master_max_luminance = m->has_luminance && m->max_luminance.den ? av_q2d(m->max_luminance) : 0;
    a->master_min_luminance = m->has_luminance && m->min_luminance.den ? av_q2d(m->min_luminance) : 0;
    if (m->max_luminance.den <= 0 || m->min_luminance.den <= 0) exact = 0;
    a->has_mastering_display = m->has_primaries || m->has_luminance;
    a->master_display[0] = 0;
    if (!exact) return;
    /* Rounded from the rationals, not the doubles: HEVC's SEI holds these very integers, and the
     * re-encode should write back what it read. */
#define UNITS(q, scale) av_rescale((q).num, (scale), (q).den)
    snprintf(a->master_display, sizeof a->master_display,
             "G(%lld,%lld)B(%lld,%lld)R(%lld,%lld)WP(%lld,%lld)L(%lld,%lld)",
             (long long)UNITS(m->display_primaries[1][0], 50000), (long long)UNITS(m->display_primaries[1][1], 50000),
             (long long)UNITS(m->display_primaries[2][0], 50000), (long long)UNITS(m->display_primaries[2][1], 50000),
             (long long)UNITS(m->display_primaries[0][0], 50000), (long long)UNITS(m->display_primaries[0][1], 50000),
             (long long)UNITS(m->white_point[0], 50000), (long long)UNITS(m->white_point[1], 50000),
             (long long)UNITS(m->max_luminance, 10000), (long long)UNITS(m->min_luminance, 10000));
#undef UNITS
}

/* What the frame adds to what the container said: colours it left unsaid, HDR side data it lacks. */
static void read_frame_description(Analysis *s, const AVFrame *frame) {
    MedleyMovieAnalysis *a = s->a;
    if (a->sampled_frames == 1) {
        const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(frame->format);
        a->bit_depth = d ? d->comp[0].depth : 0;
        if (!known_transfer(a->transfer) && known_transfer(frame->color_trc)) a->transfer = frame->color_trc;
        if (!known_primaries(a->primaries) && known_primaries(frame->color_primaries))
            a->primaries = frame->color_primaries;
        if (!known_matrix(a->matrix) && known_matrix(frame->colorspace)) a->matrix = frame->colorspace;
        if (!known_range(a->range) && known_range(frame->color_range)) a->range = frame->color_range;
    }
    const AVFrameSideData *sd;
    if (!a->has_mastering_display &&
        (sd = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)) &&
        sd->size >= sizeof(AVMasteringDisplayMetadata))
        read_mastering(a, (const AVMasteringDisplayMetadata *)sd->data);
    if (!a->has_content_light && (sd = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)) &&
        sd->size >= sizeof(AVContentLightMetadata)) {
        const AVContentLightMetadata *c = (const AVContentLightMetadata *)sd->data;
        a->has_content_light = 1;
        a->max_cll = (int)c->MaxCLL;
        a->max_fall = (int)c->MaxFALL;
    }
    if (av_frame_get_side_data(frame, AV_FRAME_DATA_DYNAMIC_HDR_PLUS)) a->has_hdr10_plus = 1;
}

static void read_stream_description(Analysis *s) {
    MedleyMovieAnalysis *a = s->a;
    const AVStream *stream = s->in.format->streams[s->in.video];
    const AVCodecParameters *par = stream->codecpar;
    a->transfer = par->color_trc;
    a->primaries = par->color_primaries;
    a->matrix = par->color_space;
    a->range = par->color_range;
    size_t length = 0;
    const uint8_t *data = stream_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &length);
    if (data && length >= sizeof(AVMasteringDisplayMetadata))
        read_mastering(a, (const AVMasteringDisplayMetadata *)data);
    data = stream_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &length);
    if (data && length >= sizeof(AVContentLightMetadata)) {
        const AVContentLightMetadata *c = (const AVContentLightMetadata *)data;
        a->has_content_light = 1;
        a->max_cll = (int)c->MaxCLL;
        a->max_fall = (int)c->MaxFALL;
    }
    data = stream_side_data(stream, AV_PKT_DATA_DOVI_CONF, &length);
    if (data && length >= sizeof(AVDOVIDecoderConfigurationRecord))
        a->dolby_vision_profile = ((const AVDOVIDecoderConfigurationRecord *)data)->dv_profile;
    if (stream_side_data(stream, AV_PKT_DATA_DYNAMIC_HDR10_PLUS, &length)) a->has_hdr10_plus = 1;
}

/* One sampled frame: flags, colours, bars, idet. */
static int look_at(Analysis *s, AVFrame *frame, char *error, size_t size) {
    MedleyMovieAnalysis *a = s->a;
    a->sampled_frames++;
    if (frame_is_interlaced(frame)) {
        a->flagged_interlaced++;
        if (frame_is_top_first(frame)) a->flagged_top_first++;
    }
    if (a->sampled_frames == 1) {
        s->width = frame->width;
        s->height = frame->height;
    }
    read_frame_description(s, frame);
    Luma luma;
    int top, bottom, left, right;
    if (frame->width == s->width && frame->height == s->height && luma_open(&luma, frame)) {
        if (!picture_extent(&luma, frame->width, frame->height, &top, &bottom, &left, &right)) {
            a->black_frames++;
        } else if (s->measured++ == 0) {
            s->top = top, s->bottom = bottom, s->left = left, s->right = right;
        } else {
            s->top = FFMIN(s->top, top), s->bottom = FFMAX(s->bottom, bottom);
            s->left = FFMIN(s->left, left), s->right = FFMAX(s->right, right);
        }
    }
    return idet_feed(s, frame, error, size);
}

/* The crop: the union of the pictures' extents widened to even edges (never narrowed: a column of
 * picture is worth more than a line of bar); the whole picture when nothing was measured. */
static void finish_crop(Analysis *s) {
    MedleyMovieAnalysis *a = s->a;
    a->width = s->width;
    a->height = s->height;
    if (!s->measured) {
        a->crop_x = a->crop_y = 0;
        a->crop_width = s->width;
        a->crop_height = s->height;
        return;
    }
    int x = s->left & ~1, y = s->top & ~1;
    int x_end = FFMIN((s->right + 2) & ~1, s->width), y_end = FFMIN((s->bottom + 2) & ~1, s->height);
    a->crop_x = x;
    a->crop_y = y;
    a->crop_width = x == 0 && x_end == s->width ? s->width : (x_end - x) & ~1;
    a->crop_height = y == 0 && y_end == s->height ? s->height : (y_end - y) & ~1;
}

/* Decodes one stretch of up to FRAMES_PER_SAMPLE frames from where the demuxer is, from `from` on
 * (AV_NOPTS_VALUE: the first frame) and after `*last` (the last timestamp looked at). Returns 0, 1
 * when the stream has ended, −1 on error. */
static int sample_stretch(Analysis *s, int64_t from, int *flushing, int *errors, int64_t *last, char *error,
                          size_t size) {
    int taken = 0, skipped = 0;
    /* Frames decoded only to reach the stretch are not looked at: the decoder leaves out their loop
     * filter and the frames nothing refers to (about half a frame's work), until the first one is taken. */
    AVCodecContext *decoder = s->in.video_decoder;
    if (from != AV_NOPTS_VALUE) {
        decoder->skip_loop_filter = AVDISCARD_ALL;
        decoder->skip_frame = AVDISCARD_NONREF;
    }
    while (taken < FRAMES_PER_SAMPLE && skipped <= 2 * MAX_SKIPPED_FRAMES) {
        int r = medley_movie_next_video_frame(&s->in, s->packet, s->frame, flushing, errors, error, size);
        if (r < 0) return -1;
        if (r == 0) return idet_end(s, error, size) < 0 ? -1 : 1;
        int64_t pts = s->frame->best_effort_timestamp;
        /* Damaged frames (references missing after the seek) would show blocks for bars and combs;
         * frames looked at already would count twice. Frames before `from` are passed over while
         * the budget lasts, then the stretch starts where decoding is. */
        int seen = pts != AV_NOPTS_VALUE && *last != AV_NOPTS_VALUE && pts <= *last;
        int early = pts != AV_NOPTS_VALUE && from != AV_NOPTS_VALUE && pts < from && skipped < MAX_SKIPPED_FRAMES;
        if (medley_frame_is_damaged(s->frame) || seen || early) {
            skipped++;
            av_frame_unref(s->frame);
            continue;
        }
        decoder->skip_loop_filter = decoder->skip_frame = AVDISCARD_DEFAULT;
        if (pts != AV_NOPTS_VALUE) *last = pts;
        s->frame->pts = pts;
        r = look_at(s, s->frame, error, size);
        av_frame_unref(s->frame);
        if (r < 0) return -1;
        taken++;
    }
    return idet_end(s, error, size);
}

int medley_movie_analyze(const char *path, int samples, MedleyMovieAnalysis *analysis, char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    memset(analysis, 0, sizeof *analysis);
    Analysis s;
    memset(&s, 0, sizeof s);
    s.a = analysis;
    int result = -1;
    if (samples < 1) samples = 1;
    if (samples > MAX_SAMPLES) samples = MAX_SAMPLES;
    if (!avfilter_get_by_name("idet")) { snprintf(error, size, "this FFmpeg has no idet filter"); goto done; }
    s.packet = av_packet_alloc();
    s.frame = av_frame_alloc();
    s.filtered = av_frame_alloc();
    if (!s.packet || !s.frame || !s.filtered) { snprintf(error, size, "out of memory"); goto done; }
    if (medley_movie_input_open(&s.in, path, error, size) < 0) goto done;
    /* One file analysed at a time, before its transcode: every core decodes. */
    if (medley_movie_open_decoder(&s.in, s.in.video, &s.in.video_decoder, 0, error, size) < 0) goto done;
    read_stream_description(&s);

    const AVStream *stream = s.in.format->streams[s.in.video];
    int64_t first = stream->start_time != AV_NOPTS_VALUE
        ? stream->start_time : av_rescale_q(medley_container_start(s.in.format), AV_TIME_BASE_Q, stream->time_base);
    int64_t duration = stream->duration > 0 ? stream->duration
        : s.in.format->duration > 0 ? av_rescale_q(s.in.format->duration, AV_TIME_BASE_Q, stream->time_base) : 0;
    int flushing = 0, errors = 0;
    int64_t last = AV_NOPTS_VALUE;
    for (int i = 0; i < samples; i++) {
        /* The middles of `samples` equal parts. Without a duration (or a seek that fails) the
         * stretches follow each other from where decoding is. */
        int64_t from = AV_NOPTS_VALUE;
        if (duration > 0) {
            int64_t target = first + av_rescale(duration, 2 * i + 1, 2 * (int64_t)samples);
            /* With an index (MP4, Matroska) the keyframe a seek lands on is known. When it lies
             * before what was looked at already (keyframes further apart than the stretches),
             * decoding on reaches the target without decoding that stretch again; the stretch then
             * starts at the target, as far as MAX_SKIPPED_FRAMES reach. Else the stretch starts at
             * the keyframe: decoding up to the target could cost a whole group of pictures. */
            int entry = av_index_search_timestamp(s.in.format->streams[s.in.video], target, AVSEEK_FLAG_BACKWARD);
            const AVIndexEntry *keyframe = entry >= 0 ? avformat_index_get_entry(s.in.format->streams[s.in.video], entry)
                                                      : NULL;
            if (keyframe && last != AV_NOPTS_VALUE && keyframe->timestamp <= last) {
                from = target;
            } else if (av_seek_frame(s.in.format, s.in.video, target, AVSEEK_FLAG_BACKWARD) >= 0) {
                avcodec_flush_buffers(s.in.video_decoder);
                flushing = 0;
            }
        }
        int r = sample_stretch(&s, from, &flushing, &errors, &last, error, size);
        if (r < 0) goto done;
        if (r == 1) break; /* decoded to the end: the later stretches lie beyond it */
    }
    if (analysis->sampled_frames == 0) { snprintf(error, size, "no video frame could be decoded"); goto done; }
    finish_crop(&s);
    result = 0;
done:
    graph_free(&s.idet);
    av_frame_free(&s.frame);
    av_frame_free(&s.filtered);
    av_packet_free(&s.packet);
    medley_movie_input_close(&s.in);
    return result;
}
