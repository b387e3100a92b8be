import ContentfulMirror

/// The `--help` texts.
enum HelpText {
  static let main = """
    contentful-mirror \(ContentfulMirrorVersion.current): keep a Contentful space as plain JSON files.

    Usage:
      contentful-mirror sync <dir> [options]     initial sync, then delta syncs from the stored token
      contentful-mirror status <dir> [--json]    what the mirror holds and when it last synced
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
}
