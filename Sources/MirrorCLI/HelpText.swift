import ContentfulMirror

/// The `--help` texts.
enum HelpText {
  static let main = """
    contentful-mirror \(ContentfulMirrorVersion.current): keep a Contentful space as plain JSON files.

    Usage:
      contentful-mirror sync <dir> [options]     initial sync, then delta syncs from the stored token
      contentful-mirror status <dir> [--json]    what the mirror holds and when it last synced
      contentful-mirror export <dir> -o <file>   a reproducible archive (tar, tar.gz, tar.zst, tar.xz, zip)
      contentful-mirror restore <archive> <dir>  a mirror from a complete archive, ready to sync on
      contentful-mirror help [command]           this text, or a command's
      contentful-mirror --version

    Run `contentful-mirror <command> --help` for a command's options.
    Exit codes: 0 success, 1 failure, 64 usage error.

    """

  static let sync = """
    Usage: contentful-mirror sync <dir> [options]

    Syncs <dir> with a space through the Sync API. The first run is an initial sync; later runs
    apply only what changed since the token in <dir>/manifest.json. An interrupted sync resumes
    where it stopped. The access token is read from CONTENTFUL_ACCESS_TOKEN or --token-file and
    is never written anywhere.

    Options:
      --space <id>          the space (required for the first sync; later from the manifest)
      --environment <id>    the environment (default: master)
      --host <host|url>     cdn.contentful.com (default), preview.contentful.com, or a base URL
                            such as http://127.0.0.1:8123 for a local stand-in
      --source <dir>        sync from a recorded space on disk instead of the network
                            (e.g. --source sample-space); no token needed
      --locale <code>       mirror only this locale (repeatable; default: every locale)
      --all-locales         go back to mirroring every locale
      --full                start a fresh initial sync and remove what is no longer in the space
      --token-file <path>   read the access token from this file
      --token <token>       the access token on the command line (visible to other users: avoid)
      --encoders <n>        threads encoding documents (default 1)
      --writers <n>         threads creating files (default 2)
      --durability <d>      syncfs (default: one flush per commit point), fsync (every file),
                            or none (no flush: for throwaway mirrors; survives a killed
                            process, not a power loss)
      --checkpoint-every <n>  pages between commit points (default 20): fewer redo less after
                            a crash, more flush less often
      --timeout <seconds>   give up on one request after this long and retry it (default 60)
      --retries <n>         retries of a failed request (default 5; waits at most 180 s in all)
      --quiet               no progress output
      -h, --help            this text

    """

  static let status = """
    Usage: contentful-mirror status <dir> [--json]

    Prints the space, environment and host of the mirror in <dir>, whether it holds a sync token,
    the mirrored locales, entry counts per content type, asset count, dangling link targets,
    whether a sync is in progress, and when the last sync finished.

    Options:
      --json        machine-readable output
      -h, --help    this text

    """

  static let export = """
    Usage: contentful-mirror export <dir> -o <file|-> [options]

    Writes the mirror in <dir> as an archive. The same mirror state always gives the same bytes:
    members sorted by path, uid/gid 0, fixed modes, one mtime (SOURCE_DATE_EPOCH when set,
    otherwise the newest sys.updatedAt included), no gzip timestamp. The archive is written to a
    temporary file and renamed, so a failed export leaves nothing at <file>.

    Options:
      -o, --output <file|->     the archive; - writes to standard output (needs --format)
      --format <f>              tar, tar.gz (tgz), tar.zst, tar.xz, zip (default: from the file name)
      --level <n>               compression level (gzip/xz/zip 0-9, zstd 1-19)
      --locale <code>           only this locale (repeatable)
      --content-type <id>       only entries of this content type (repeatable; assets stay)
      --layout <l>              mirror (default) or by-locale: <locale>/entries/<type>/<id>.json
      --since <token|manifest>  only what changed since that sync token (or an earlier
                                manifest.json), plus deleted.json; apply with restore --apply
      -h, --help                this text

    """

  static let restore = """
    Usage: contentful-mirror restore <archive|-> <dir> [--force]
           contentful-mirror restore --apply <bundle> <dir>

    The first form restores a complete export into <dir> (new or empty; --force replaces the
    mirror files of a non-empty one). Paths outside the mirror layout, absolute paths, "..",
    links and devices are refused. The files are checked against the archived manifest, and the
    restored mirror syncs on from the archived sync token.

    The second form applies a delta bundle (export --since) to the mirror in <dir>, which must be
    at the bundle's starting token; the result equals a direct sync.

    Options:
      --force           restore into a non-empty directory
      --apply <bundle>  apply a delta bundle
      -h, --help        this text

    """
}
