"""An SMTP relay on loopback for the email alerts' test (server/tests/integration/alert_channels.rs).

aiosmtpd (PyPI, installed into .venv by .ci/install-deps) serving twice with the certificate the
test made: STARTTLS required on one port, implicit TLS on the other, both asking for AUTH with
the test's user and password. Prints one JSON line when ready ({"ready": {"starttls": port,
"tls": port}}), then one per event: {"auth": ...} for every AUTH attempt, and for every message
received, what Python's own `email` package reads in it (parsed with policy.strict, which raises
on any defect, and with policy.default, whose defects are listed).

Usage: smtp_server.py CERT KEY USER PASSWORD
"""
import email
import email.policy
import json
import logging
import socket
import ssl
import sys
import threading
import warnings

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

CERT, KEY, USER, PASSWORD = sys.argv[1:5]
# aiosmtpd 1.4 warns of its own Session.login_data when AUTH succeeds.
warnings.filterwarnings("ignore", category=DeprecationWarning)
logging.getLogger("mail.log").setLevel(logging.CRITICAL)
lock = threading.Lock()


def say(obj):
    with lock:
        print(json.dumps(obj), flush=True)


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == USER \
        and auth_data.password.decode() == PASSWORD
    say({"auth": {"mechanism": mechanism, "ok": ok}})
    return AuthResult(success=ok, auth_data=USER if ok else None)


class Handler:
    def __init__(self, name):
        self.name = name

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        seen = {"server": self.name, "auth": session.auth_data, "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos, "tls": session.ssl is not None or self.name == "starttls"}
        try:
            email.message_from_bytes(raw, policy=email.policy.strict)
            seen["strict"] = "ok"
        except Exception as e:  # a defect: the test fails, saying which
            seen["strict"] = f"{type(e).__name__}: {e}"
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        defects = [repr(d) for part in msg.walk() for d in part.defects]
        seen["defects"] = defects
        seen["header_names"] = [k.lower() for k in msg.keys()]
        seen["headers"] = {k: str(msg[k]) for k in ("Subject", "From", "To", "Date", "Message-ID",
                                                     "In-Reply-To", "References", "Content-Type")
                           if msg[k] is not None}
        seen["content_type"] = msg.get_content_type()
        text = msg.get_body(preferencelist=("plain",))
        html = msg.get_body(preferencelist=("html",))
        seen["text"] = text.get_content() if text is not None else None
        seen["html"] = html.get_content() if html is not None else None
        seen["raw"] = raw.decode("utf-8", "replace")
        say({"message": seen})
        return "250 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
ctx.load_cert_chain(CERT, KEY)

starttls = Controller(Handler("starttls"), hostname="127.0.0.1", port=free_port(), tls_context=ctx,
                      require_starttls=True, authenticator=authenticator, auth_require_tls=True)
starttls.start()
# Implicit TLS: the whole session is TLS (aiosmtpd's auth_require_tls knows only STARTTLS).
implicit = Controller(Handler("tls"), hostname="127.0.0.1", port=free_port(), ssl_context=ctx,
                      authenticator=authenticator, auth_require_tls=False)
implicit.start()
say({"ready": {"starttls": starttls.port, "tls": implicit.port}})
try:
    sys.stdin.read()  # until the test ends (its end of the pipe closes)
finally:
    starttls.stop()
    implicit.stop()
