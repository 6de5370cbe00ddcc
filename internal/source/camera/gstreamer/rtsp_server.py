#!/usr/bin/python3
"""A GStreamer RTSP server for fleetgate's camera tests and benchmarks.

It serves a moving test pattern at rtsp://127.0.0.1:PORT/test, encoded as H.264 or as MJPEG
(RTP/JPEG), optionally behind RTSP authentication. It binds a free port itself and prints
"ready PORT" on stdout once it accepts connections; it stops on SIGTERM, SIGINT or when its
standard input closes (so a test that dies never leaves it running).
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402


def pipeline(args):
    src = (
        f"videotestsrc is-live=true pattern={args.pattern} "
        f"! video/x-raw,width={args.width},height={args.height},framerate={args.fps}/1 "
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
    args = p.parse_args()

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(pipeline(args))
    factory.set_shared(True)
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
