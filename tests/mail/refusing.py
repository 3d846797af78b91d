"""An aiosmtpd handler for the mail tests: a Maildir, as aiosmtpd.handlers.Mailbox, that
answers the first N mails at the end of DATA with 451 (a temporary failure: "try again
later") or the answer given (such as "550 5.1.1 No such user", a permanent one), and writes
the time (seconds since the epoch) and the Message-ID of each mail it refused to a file, one
line each.

    python3 -m aiosmtpd -n -l 127.0.0.1:2525 -c refusing.Refusing MAILDIR N REFUSED_FILE [ANSWER]
"""

import email
import time

from aiosmtpd.handlers import Mailbox


class Refusing(Mailbox):
    def __init__(self, mail_dir, refuse, refused_file, answer="451 4.3.0 Try again later"):
        super().__init__(mail_dir)
        self.left = int(refuse)
        self.refused_file = refused_file
        self.answer = answer

    async def handle_DATA(self, server, session, envelope):
        if self.left > 0:
            self.left -= 1
            content = envelope.original_content or envelope.content
            if isinstance(content, str):
                content = content.encode("utf-8", "surrogateescape")
            message_id = (email.message_from_bytes(content).get("Message-ID") or "").strip()
            with open(self.refused_file, "a", encoding="utf-8") as out:
                out.write(f"{time.time():.6f} {message_id}\n")
            return self.answer
        return await super().handle_DATA(server, session, envelope)

    @classmethod
    def from_cli(cls, parser, *args):
        if len(args) not in (3, 4):
            parser.error("Refusing takes: MAILDIR N REFUSED_FILE [ANSWER]")
        return cls(*args)
