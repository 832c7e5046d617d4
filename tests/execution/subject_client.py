"""The judge's side of the subject protocol, as source text for the judges the tests run in
the sandbox (standard library only): ``start()`` asks the server for a subject and returns
``(channel socket, None)`` or ``(None, the refusal's line)``."""

JUDGE_CLIENT = '''
import os, socket

_server = socket.socket(fileno=int(os.environ["CODETEAM_SUBJECT_FD"]))


def start():
    _server.sendall(b"S")
    answer, fds, _flags, _address = socket.recv_fds(_server, 1, 1)
    if answer == b"S" and len(fds) == 1:
        return socket.socket(fileno=fds[0]), None
    for fd in fds:
        os.close(fd)
    line = answer
    while not line.endswith(b"\\n"):
        more = _server.recv(1)
        if not more:
            break
        line += more
    return None, line.decode()
'''
