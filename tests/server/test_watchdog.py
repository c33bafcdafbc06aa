"""The server's one watchdog thread (server/watchdog.py): query deadlines and REST clients that
went away, over real sockets; no Spark."""

from __future__ import annotations

import socket
import threading
import time

from drillspark.server.watchdog import Watchdog


class Calls:
    """A callback that records when it was called."""

    def __init__(self) -> None:
        self.at: list[float] = []
        self.event = threading.Event()

    def __call__(self) -> None:
        self.at.append(time.monotonic())
        self.event.set()


def test_a_deadline_fires_once_at_its_time_and_a_stopped_one_never():
    dog = Watchdog(linger=5)
    start = time.monotonic()
    late, early, stopped = Calls(), Calls(), Calls()
    dog.after(0.6, late)
    dog.after(0.2, early)
    stop = dog.after(0.3, stopped)
    stop()
    assert early.event.wait(5) and late.event.wait(5)
    assert 0.2 <= early.at[0] - start < late.at[0] - start
    assert late.at[0] - start >= 0.6
    time.sleep(0.3)
    assert stopped.at == []
    assert len(early.at) == len(late.at) == 1


def test_a_client_that_closes_its_connection_is_reported_once():
    dog = Watchdog(every=0.05, linger=5)
    server, client = socket.socketpair()
    with server:
        gone = Calls()
        dog.client(server, gone)
        time.sleep(0.2)
        assert gone.at == []  # silent, still connected
        client.close()
        assert gone.event.wait(5)
        time.sleep(0.2)
        assert len(gone.at) == 1


def test_a_client_that_sends_more_or_is_no_longer_watched_is_not_reported():
    dog = Watchdog(every=0.05, linger=5)
    a_server, a_client = socket.socketpair()
    b_server, b_client = socket.socketpair()
    with a_server, a_client, b_server:
        a_gone, b_gone = Calls(), Calls()
        dog.client(a_server, a_gone)
        a_client.sendall(b"GET / HTTP/1.1\r\n")  # a next request: the client is there
        time.sleep(0.2)
        a_client.close()  # no longer watched: the answer's write notices
        done = dog.client(b_server, b_gone)
        done()  # the first row came
        b_client.close()
        time.sleep(0.3)
        assert a_gone.at == [] and b_gone.at == []
        assert a_server.recv(3) == b"GET"  # the peek left the request's bytes in place


def test_one_thread_for_every_watch_which_ends_when_idle_and_comes_back():
    dog = Watchdog(every=0.05, linger=0.3)

    def threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "drillspark-watchdog"]

    before = len(threads())
    events = [threading.Event() for _ in range(20)]
    for e in events:
        dog.after(0.1, e.set)
    assert all(e.wait(5) for e in events)
    assert len(threads()) == before + 1
    deadline = time.monotonic() + 5
    while len(threads()) > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(threads()) == before  # gone after `linger` with nothing to watch
    again = threading.Event()
    dog.after(0.05, again.set)
    assert again.wait(5)


def test_a_failing_call_does_not_stop_the_others():
    dog = Watchdog(linger=5)
    ok = threading.Event()

    def boom() -> None:
        raise RuntimeError("a cancel failed")

    dog.after(0.05, boom)
    dog.after(0.15, ok.set)
    assert ok.wait(5)


def test_a_deadline_that_never_comes_leaves_the_others_watched():
    # `--max-seconds inf`: a sleep that long is more than Condition.wait takes
    dog = Watchdog(linger=5)
    never, soon = Calls(), Calls()
    dog.after(float("inf"), never)
    time.sleep(0.1)  # the thread goes to sleep with only that deadline to wait for
    dog.after(0.1, soon)
    assert soon.event.wait(5)
    assert never.at == []


def test_a_watchdog_whose_thread_died_starts_another():
    dog = Watchdog(linger=5)
    fired = Calls()
    broken = threading.Thread(target=lambda: None, name="drillspark-watchdog")
    broken.start()
    broken.join()
    dog._thread = broken  # as if the thread had died of an error, leaving itself named
    dog.after(0.05, fired)
    assert fired.event.wait(5)


def test_a_client_on_a_descriptor_past_select_s_limit_is_watched():
    # select() takes descriptors below 1024 only; a busy server's connections go past it
    import os
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft <= 1500:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    server, client = socket.socketpair()
    high = socket.socket(fileno=os.dup2(server.fileno(), 1500))
    server.close()
    dog = Watchdog(every=0.05, linger=5)
    with high:
        gone = Calls()
        dog.client(high, gone)
        time.sleep(0.3)
        assert gone.at == []  # silent, still connected: not taken for closed
        client.close()
        assert gone.event.wait(5)
