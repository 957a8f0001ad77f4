"""A certificate for `fortap serve --addin`: Office loads add-ins only over HTTPS, even from the
loopback, so the service makes its own, once, with `cryptography`.

`ensure_cert(folder)` writes a self-signed certificate for `localhost`, `127.0.0.1` and `::1`
(`cert.pem`, and `key.pem` readable by the user alone) and reuses it while it is valid for at
least another day; the user trusts `cert.pem` once (docs/addins.md says how, per system).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from pathlib import Path

from fortap.errors import FortapError

VALID_DAYS = 365
NAME = "fortap serve (localhost)"


def default_cert_dir() -> Path:
    """`$FORTAP_HOME/addin-cert`, by default `~/.fortap/addin-cert`."""
    home = os.environ.get("FORTAP_HOME")
    return (Path(home) if home else Path.home() / ".fortap") / "addin-cert"


def ensure_cert(folder: Path) -> tuple[Path, Path]:
    """(cert.pem, key.pem) in `folder`, made now unless a valid pair is there already."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ModuleNotFoundError:
        raise FortapError("fortap serve --addin needs the [serve] extra's cryptography: "
                          "pip install -e '.[serve]'") from None  # fmt: skip
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    now = dt.datetime.now(dt.UTC)
    if cert_path.is_file() and key_path.is_file():
        try:
            old = x509.load_pem_x509_certificate(cert_path.read_bytes())
            if old.not_valid_after_utc - now > dt.timedelta(days=1):
                return cert_path, key_path
        except ValueError:
            pass  # unreadable: made again below
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise FortapError(f"--cert-dir {folder}: cannot create it ({err.strerror})") from None
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, NAME)])
    alt = x509.SubjectAlternativeName([
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("::1")),
    ])  # fmt: skip
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
        .add_extension(alt, critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_bytes = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())  # fmt: skip
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key_bytes)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path
