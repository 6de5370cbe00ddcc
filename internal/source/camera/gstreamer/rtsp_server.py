#!/usr/bin/python3
"""A GStreamer RTSP server for fleetgate's camera tests and benchmarks.

It serves a moving test pattern at rtsp://127.0.0.1:PORT/test, encoded as H.264 or as MJPEG
(RTP/JPEG), optionally behind RTSP authentication, optionally with the wall-clock time of each
picture's capture burned into its bottom (--clock-strip, the layout of fleetgate's
internal/clockstrip, for glass-to-glass latency). It binds a free port itself and prints
"ready PORT" on stdout once it accepts connections; it stops on SIGTERM, SIGINT or when its
standard input closes (so a test that dies never leaves it running).
"""
import argparse
import signal
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402


def raw_source(args):
    return (
        f"videotestsrc is-live=true pattern={args.pattern} "
        f"! video/x-raw,width={args.width},height={args.height},framerate={args.fps}/1 "
    )


def pipeline(args):
    src = raw_source(args)
    if args.clock_strip:
        # The pictures come from ClockStrip, burned (see there), timestamped as they arrive.
        src = (
            "appsrc name=strip is-live=true do-timestamp=true format=time "
            f"caps=video/x-raw,format=I420,width={args.width},height={args.height},framerate={args.fps}/1 "
        )
    if args.codec == "h264":
        enc = (
            "! videoconvert ! x264enc tune=zerolatency speed-preset=ultrafast "
            + (f"bitrate={args.bitrate} " if args.bitrate else "")
            + f"key-int-max={args.fps} ! rtph264pay name=pay0 pt=96 config-interval=1"
        )
    else:
        enc = "! videoconvert ! video/x-raw,format=I420 ! jpegenc quality=85 ! rtpjpegpay name=pay0 pt=26"
    return "( " + src + enc + " )"


# The strip follows fleetgate's internal/clockstrip exactly: its package comment is the one
# description of the layout (cells, bit order, check), and clockstrip.Read is what reads this
# writer's pictures back (TestClockStripReadsBackFromTheDecodedStream). These are its constants.
STRIP_CELLS = 32
STRIP_HEIGHT_DIV = 16
VALUE_BITS = 24
CHECK_BITS = 6
WHITE, BLACK, NEUTRAL = 235, 16, 128  # video-range luma; chroma without colour


def strip_cells(unix_ms):
    """The cells' whites (True) for a capture time: the references, the value, its check."""
    v = unix_ms & ((1 << VALUE_BITS) - 1)
    check = (v ^ v >> 6 ^ v >> 12 ^ v >> 18) & ((1 << CHECK_BITS) - 1)
    word = v << CHECK_BITS | check
    n = VALUE_BITS + CHECK_BITS
    return [True, False] + [word >> (n - 1 - i) & 1 == 1 for i in range(n)]


class ClockStrip:
    """Burns each raw picture's capture time into it before the encoder.

    videotestsrc's pictures go to an appsink; each is copied, the strip written over its
    bottom rows (luma in cells, chroma neutral) and pushed into the media's appsrc. A pad
    probe cannot write the picture from Python without gst-python's overrides (the buffer is
    not writable through the bindings), hence the copy of each picture.
    """

    def __init__(self, args):
        gi.require_version("GstVideo", "1.0")
        from gi.repository import GstVideo

        caps = Gst.Caps.from_string(f"video/x-raw,format=I420,width={args.width},height={args.height},framerate={args.fps}/1")
        info = GstVideo.VideoInfo.new_from_caps(caps)
        w, h = args.width, args.height
        self.size = info.size
        y0 = h - h // STRIP_HEIGHT_DIV
        self.luma = [(info.offset[0] + y * info.stride[0]) for y in range(y0, h)]
        self.chroma = [
            (info.offset[plane] + y * info.stride[plane], (w + 1) // 2)
            for plane in (1, 2)
            for y in range(y0 // 2, (h + 1) // 2)
        ]
        self.bounds = [(i * w // STRIP_CELLS, (i + 1) * w // STRIP_CELLS) for i in range(STRIP_CELLS)]
        self.lock = threading.Lock()
        self.appsrc = None
        self.source = Gst.parse_launch(
            raw_source(args) + "! videoconvert ! video/x-raw,format=I420 "
            "! appsink name=raw emit-signals=true sync=false max-buffers=1 drop=true"
        )
        self.source.get_by_name("raw").connect("new-sample", self.picture)

    def attach(self, media):
        """The media (one: the factory is shared) gets the pictures from now on."""
        appsrc = media.get_element().get_by_name_recurse_up("strip")
        with self.lock:
            self.appsrc = appsrc
        self.source.set_state(Gst.State.PLAYING)

    def picture(self, sink):
        sample = sink.emit("pull-sample")
        captured = time.time_ns() // 1_000_000
        with self.lock:
            appsrc = self.appsrc
        if sample is None or appsrc is None:
            return Gst.FlowReturn.OK
        frame = bytearray(sample.get_buffer().extract_dup(0, self.size))
        row = bytearray()
        for (x0, x1), white in zip(self.bounds, strip_cells(captured)):
            row += bytes([WHITE if white else BLACK]) * (x1 - x0)
        for off in self.luma:
            frame[off:off + len(row)] = row
        for off, n in self.chroma:
            frame[off:off + n] = bytes([NEUTRAL]) * n
        appsrc.emit("push-buffer", Gst.Buffer.new_wrapped(bytes(frame)))
        return Gst.FlowReturn.OK


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--codec", choices=["h264", "mjpeg"], default="h264")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    p.add_argument("--fps", type=int, default=15)
    p.add_argument("--port", type=int, default=0, help="0: a free port")
    p.add_argument("--pattern", default="ball", help="videotestsrc pattern: ball (small frames), smpte, snow (incompressible)")
    p.add_argument("--bitrate", type=int, default=0, help="H.264 kbit/s; 0: x264enc's default")
    p.add_argument("--user", default="")
    p.add_argument("--password", default="")
    p.add_argument("--clock-strip", action="store_true", help="burn each picture's capture time into its bottom sixteenth (internal/clockstrip)")
    args = p.parse_args()

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(pipeline(args))
    factory.set_shared(True)
    if args.clock_strip:
        strip = ClockStrip(args)
        factory.connect("media-configure", lambda _factory, media: strip.attach(media))
    if args.user:
        auth = GstRtspServer.RTSPAuth()
        token = GstRtspServer.RTSPToken()
        token.set_string("media.factory.role", "viewer")
        auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, args.password), token)
        server.set_auth(auth)
        factory.add_role_from_structure(
            Gst.Structure.new_from_string(
                "viewer, media.factory.access=(boolean)true, media.factory.construct=(boolean)true"
            )
        )
    server.get_mount_points().add_factory("/test", factory)
    if server.attach(None) == 0:
        print("error: cannot attach the RTSP server", flush=True)
        sys.exit(1)

    loop = GLib.MainLoop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, loop.quit)
    GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_HUP | GLib.IO_IN | GLib.IO_ERR, lambda *a: loop.quit())
    print("ready", server.get_bound_port(), flush=True)
    loop.run()


if __name__ == "__main__":
    main()
