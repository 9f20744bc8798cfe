"""Mail: hand histories by email ("email me this hand") and email verification.

Requests go into the outbox (`app.store.outbox`) in the same database; `MailWorker` sends
them over SMTP (`SMTP_URL`) or, without it, into a local Maildir, retrying with back-off.
"""
