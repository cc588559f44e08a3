"""A real two-node Ray cluster on this machine: ``ray start --head`` and a second ``ray start``
joining it, each a process group of its own with its own temporary directory. A small
``hiveai train`` and a small ``hiveai tournament`` run across the two nodes; the second node's
processes are killed in the middle of each, and every game and label is then present exactly
once (the run finishes, or the same command resumes it). Each node offers one CPU and the
runs keep one task per cluster CPU in flight, so when the second node dies it holds a task: Ray
runs that task again on the head, and the caller records each result once. Slow (about two
minutes on a loaded 2-core machine): CI's slow step runs it."""

from __future__ import annotations

import json
import os
import shutil
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

from hiveai.durable import read_json_lines  # noqa: E402
from hiveai.training.dataset import read_dataset, shard_paths  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.integration]

BIN = Path(sys.executable).parent
RAY = str(BIN / "ray")
HIVEAI = str(BIN / "hiveai")
START_TIMEOUT = 180.0  # a loaded 2-core machine starts a Ray node in 10 to 60 s

# Every process of the test (the nodes, the probes, the hiveai commands) runs with this cluster's own
# authentication token. Ray turns token authentication on by itself for a `ray start --head` that finds a
# token in ~/.ray/auth_token (which any earlier local `ray.init()` on the machine writes), and a client
# that does not share the token is then refused; an explicit mode and token make the test the same on
# every machine, whatever its home directory holds.
RAY_ENV = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="token",
               RAY_AUTH_TOKEN=secrets.token_hex(32))


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Node:
    """One ``ray start --block`` in a session of its own: killing its process group ends the node
    (raylet, agents, workers and the engines they started), and nothing else."""

    def __init__(self, root: Path, name: str, head_port: int, head: bool) -> None:
        self.temp = root / name
        self.log = root / f"{name}.log"
        listen, grpc, metrics, runtime = _free_ports(4)
        args = [RAY, "start", "--num-cpus=1", f"--temp-dir={self.temp}", "--node-ip-address=127.0.0.1",
                f"--dashboard-agent-listen-port={listen}", f"--dashboard-agent-grpc-port={grpc}",
                f"--metrics-export-port={metrics}", f"--runtime-env-agent-port={runtime}", "--block"]
        args += ([f"--head", f"--port={head_port}", "--include-dashboard=false"] if head
                 else [f"--address=127.0.0.1:{head_port}"])
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=RAY_ENV,
                                         start_new_session=True)

    def kill(self) -> None:
        """SIGKILL the node's whole process group (what a machine dying does to it)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        """End the node: SIGTERM to its process group (Ray's graceful stop), then SIGKILL."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        self.kill()


def _alive_node_dirs(address: str) -> tuple[list[str], str]:
    """The object store sockets of the cluster's live nodes (each under its node's temporary
    directory), and what the probe printed when it could not ask the cluster."""
    code = ("import json, ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
            "print(json.dumps([n['ObjectStoreSocketName'] for n in ray.nodes() if n['Alive']]))")
    try:
        out = subprocess.run([sys.executable, "-c", code, address], capture_output=True, text=True, timeout=120,
                             env=RAY_ENV)
    except subprocess.TimeoutExpired:
        return [], "the probe's ray.init() did not return in 120 s"
    if out.returncode == 0 and out.stdout.strip():
        return json.loads(out.stdout.strip().splitlines()[-1]), ""
    return [], (out.stdout + out.stderr)[-3000:]


def _wait_for(address: str, node: Node) -> None:
    """Until ``node`` is a live node of the cluster."""
    deadline = time.monotonic() + START_TIMEOUT
    problem = ""
    while time.monotonic() < deadline:
        assert node.proc.poll() is None, f"ray start ended:\n{node.log.read_text()[-3000:]}"
        alive, problem = _alive_node_dirs(address)
        if any(d.startswith(str(node.temp) + os.sep) for d in alive):
            return
        time.sleep(2)
    raise AssertionError(f"the Ray node in {node.temp} did not come up in {START_TIMEOUT:.0f} s.\n"
                         f"The last probe of the cluster:\n{problem}\nThe node's log:\n{node.log.read_text()[-3000:]}")


@pytest.fixture
def cluster():
    """A head node; the test adds and kills the second ones. Everything is torn down whatever happens."""
    # A short path: Ray's Unix sockets live under the temporary directory (at most 107 bytes).
    root = Path(tempfile.mkdtemp(prefix="hr", dir="/tmp"))
    (port,) = _free_ports(1)
    nodes = [Node(root, "head", port, head=True)]
    address = f"127.0.0.1:{port}"

    def add_node() -> Node:
        node = Node(root, f"node{len(nodes)}", port, head=False)
        nodes.append(node)
        _wait_for(address, node)
        return node

    try:
        _wait_for(address, nodes[0])
        yield address, add_node
    finally:
        for node in reversed(nodes):
            node.stop()
        shutil.rmtree(root, ignore_errors=True)


def _run_killing(args: list[str], node, marker: str, cwd: Path) -> tuple[int, str]:
    """Run a hiveai command; when a line containing ``marker`` appears, kill ``node``. Returns
    (exit status, output)."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd,
                            env=RAY_ENV)
    lines, killed = [], False
    try:
        for line in proc.stdout:
            lines.append(line)
            if not killed and marker in line:
                node.kill()
                killed = True
                lines.append("<< the second node was killed here >>\n")
        proc.wait(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert killed, "".join(lines)
    print("".join(lines))  # what happened, for -s
    return proc.returncode, "".join(lines)


def test_train_and_a_tournament_survive_the_loss_of_a_node(cluster, tmp_path):
    address, add_node = cluster
    node = add_node()
    games = 10
    train = [HIVEAI, "train", "--cluster", f"ray:{address}", "--game-type", "Base", "--games", str(games),
             "--selfplay-depth", "2", "--label-depth", "4", "--sample-every", "3",
             "--fit", "linear", "--out", "t"]
    status, output = _run_killing(train, node, "games labelled", tmp_path)
    if status != 0:  # the run stopped with the node: the same command resumes it
        again = subprocess.run(train, capture_output=True, text=True, cwd=tmp_path, timeout=900)
        assert again.returncode == 0, output + again.stdout + again.stderr
        output += again.stdout
    selfplay = [r["id"] for _, r in read_json_lines(tmp_path / "t" / "games.jsonl")]
    assert sorted(selfplay) == [f"Base-{i:05d}" for i in range(games)], output  # each game once
    (shard,) = shard_paths(tmp_path / "t" / "data")
    labelled, report = read_dataset([shard])
    assert report.lines == games and not report.duplicates, output  # each game's labels once
    assert sorted(g.game for g in labelled) == sorted(selfplay)
    assert all(g.positions for g in labelled)

    # A tournament across a new second node, killed in its turn.
    node = add_node()
    tournament = [HIVEAI, "tournament", "--cluster", f"ray:{address}", "--engine", f"a={HIVEAI}",
                  "--engine", f"b={HIVEAI}", "--option", "a:UseBook=False", "--option", "b:UseBook=False",
                  "--depth", "2", "--game-type", "Base", "--games", "8", "--random-plies", "2", "--seed", "5",
                  "--max-plies", "60", "--out", "m"]
    status, output = _run_killing(tournament, node, "/8 games", tmp_path)
    if status != 0:
        again = subprocess.run(tournament + ["--resume"], capture_output=True, text=True, cwd=tmp_path, timeout=900)
        assert again.returncode == 0, output + again.stdout + again.stderr
        output += again.stdout
    played = [r["id"] for _, r in read_json_lines(tmp_path / "m" / "games.jsonl")]
    config = json.loads((tmp_path / "m" / "tournament.json").read_text())
    assert len(played) == len(set(played)) == config["games"] == 8, output  # every game, each once
