"""Options the subcommands share for the keyed and customized modes: ``--key-file``,
``--key-env`` and ``--customization``. A key never comes from the command line, where any
user of the machine could read it."""

from __future__ import annotations

import os


def add_mode_options(parser) -> None:
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument(
        "--key-file",
        metavar="PATH",
        help="read the key of a keyed algorithm (kmac_*, hmac_sha3_*) from PATH: its bytes "
        "exactly, a trailing newline included. Never pass a key on the command line",
    )
    keys.add_argument(
        "--key-env",
        metavar="VAR",
        help="read the key from environment variable VAR (its UTF-8 bytes)",
    )
    parser.add_argument(
        "--customization",
        metavar="TEXT",
        default=None,
        help="customization string S (the argument's bytes as given) for cshake_*, kmac_*, "
        "tuplehash_*, parallelhash_*, kt128/kt256",
    )


def read_key(args) -> bytes | None:
    """The key from --key-file or --key-env; CommandError naming the source, never the key."""
    from batchkeccak.cli import CommandError

    if args.key_file is not None:
        try:
            with open(args.key_file, "rb") as handle:
                key = handle.read()
        except OSError as exc:
            raise CommandError(
                f"cannot read key file {args.key_file!r}: {exc.strerror or exc}"
            ) from None
        source = f"key file {args.key_file!r}"
    elif args.key_env is not None:
        value = (
            os.environb.get(os.fsencode(args.key_env))
            if os.supports_bytes_environ
            else (None if args.key_env not in os.environ else os.environ[args.key_env].encode())
        )
        if value is None:
            raise CommandError(f"environment variable {args.key_env} (--key-env) is not set")
        key, source = value, f"environment variable {args.key_env}"
    else:
        return None
    if not key:
        raise CommandError(f"{source} is empty: a keyed hash needs a non-empty key")
    return key


def read_params(args) -> dict[str, object]:
    """The key and customization given, for whichever mode takes them."""
    params: dict[str, object] = {}
    key = read_key(args)
    if key is not None:
        params["key"] = key
    if args.customization is not None:
        params["customization"] = os.fsencode(args.customization)
    return params


def mode_params(args, algorithm: str) -> dict[str, object]:
    """The keyword parameters of a mode from the key and customization options."""
    from batchkeccak.cli import CommandError
    from batchkeccak.derived.table import canonical_algorithm, modes

    params: dict[str, object] = {}
    name = canonical_algorithm(algorithm)
    mode = None if name is None else modes.get(name)
    takes = mode.params if mode is not None else ()
    key = read_key(args)
    if key is not None:
        if "key" not in takes:
            raise CommandError(
                f"--key-file/--key-env: {algorithm} takes no key (keyed algorithms: "
                f"{', '.join(n for n, m in modes.items() if 'key' in m.params)})"
            )
        params["key"] = key
    elif "key" in takes:
        raise CommandError(f"{algorithm} is keyed: give the key with --key-file or --key-env")
    if args.customization is not None:
        if "customization" not in takes:
            raise CommandError(f"--customization: {algorithm} takes no customization string")
        # The bytes the shell passed, whatever they are: a string that is not UTF-8 is
        # still a customization string.
        params["customization"] = os.fsencode(args.customization)
    return params
