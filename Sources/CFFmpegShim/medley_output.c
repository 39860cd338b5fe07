/* Writing: an encoder's finished packets into the muxer. The audio encoder and the movie transcode
 * both write through it. */
#include "medley_ffmpeg_internal.h"

int medley_output_drain(AVCodecContext *encoder, AVStream *stream, AVFormatContext *out, AVPacket *packet,
                        char *error, size_t size) {
    for (;;) {
        int r = avcodec_receive_packet(encoder, packet);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return 0;
        if (r < 0) { medley_ffmpeg_set_error(error, size, "encoding failed", r); return -1; }
        av_packet_rescale_ts(packet, encoder->time_base, stream->time_base);
        packet->stream_index = stream->index;
        r = av_interleaved_write_frame(out, packet);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot write", r); return -1; }
    }
}
