"""What bench/observe/cpu.py (stdio) and http_cpu.py (Streamable HTTP) share: the loopback OTLP
collector that counts the spans it receives (null-collector.mjs), the observation modes, and the
builds to measure (the one given, after a baseline's when given)."""
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time

here = pathlib.Path(__file__).resolve().parent


def free_port():
    """A free port on 127.0.0.1 (so that two runs at once do not meet)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class collector:
    """null-collector.mjs on a free port: reads each body, answers {}, counts the spans received.
    Use as a context manager; `url` is the OTLP endpoint, `spans_received()` the count so far."""

    def __enter__(self):
        self.work = pathlib.Path(tempfile.mkdtemp())
        self.counted = self.work / "spans"
        port = free_port()
        self.proc = subprocess.Popen(["node", str(here / "null-collector.mjs"), str(port),
                                      str(self.counted)])
        time.sleep(0.5)
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.work, ignore_errors=True)

    def spans_received(self):
        try:
            return int(self.counted.read_text() or 0)
        except (FileNotFoundError, ValueError):
            return 0


def modes(otlp):
    """mode -> (demo arguments, environment): observation off, metrics, and metrics + traces
    exported to `otlp`: every span in JSON, every span in protobuf (a build without protobuf
    sends JSON there), 10 % of the traces sampled, none sampled (those two in protobuf, each
    encoding named, whatever the build's default)."""
    traced = ["--metrics", "127.0.0.1:0", "--otlp", otlp]
    json = {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
    pb = {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}
    return {"off": ([], {}), "metrics": (["--metrics", "127.0.0.1:0"], {}),
            "traces": (traced, json),
            "traces-pb": (traced, pb),
            "traces-10%": (traced, {**pb, "OTEL_TRACES_SAMPLER_ARG": "0.1"}),
            "traces-none": (traced, {**pb, "OTEL_TRACES_SAMPLER_ARG": "0"})}


def builds(demo, baseline=None):
    """[(row prefix, path)]: the baseline's rows ("before-") first, when given."""
    out = [("", os.path.realpath(demo))]
    if baseline:
        out.insert(0, ("before-", os.path.realpath(baseline)))
    return out
