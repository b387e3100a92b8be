import ContentfulMirror
import Foundation
import MirrorTestSupport
import Testing

/// The order of flushes that makes a power loss harmless, read from the system calls of real
/// syncs (`strace`). Skipped, saying so, where `strace` cannot trace.
@Suite struct CommitOrderTests {
  /// One traced system call.
  enum Event: Equatable {
    case flush
    case renamed(String)
    case removed(String)
  }

  /// Syncs `mirror` under strace and returns its file-system events in order.
  static func tracedSync(_ mirror: String, _ work: TemporaryDirectory, run: Int) throws -> [Event]?
  {
    let log = work.appending("trace-\(run).log")
    let result = try CommandRunner().runShell(
      #"strace -f -qq -e trace=syncfs,rename,renameat,renameat2,unlink,unlinkat -o "$1" "$0" sync "$2" --source sample-space --checkpoint-every 1 --quiet"#,
      [log, mirror])
    guard result.status == 0 else {
      print("skipped: strace could not trace the sync here (\(result.error.prefix(200)))")
      return nil
    }
    let text = try String(contentsOfFile: log, encoding: .utf8)
    return text.split(separator: "\n").compactMap { line in
      let quoted = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map {
        String($0.element)
      }
      if line.contains("syncfs(") { return .flush }
      if line.contains("rename"), quoted.count >= 2 { return .renamed(quoted[1]) }
      if line.contains("unlink"), let path = quoted.first { return .removed(path) }
      return nil
    }
  }

  /// Checks the commit protocol on one sync's events; returns what was seen, for the caller.
  static func check(_ events: [Event], mirror: String) -> (checkpoints: Int, manifests: Int) {
    let manifest = mirror + "/manifest.json"
    let checkpoint = mirror + "/.mirror/checkpoint.json"
    let redoLog = mirror + "/.mirror/index-redo"
    var unflushedData = false  // a file renamed into place since the last flush
    var manifestAwaitingFlush = false
    var redoLogAwaitingFlush = false
    var counts = (checkpoints: 0, manifests: 0)
    for event in events {
      switch event {
      case .flush:
        unflushedData = false
        manifestAwaitingFlush = false
        redoLogAwaitingFlush = false
      case .renamed(checkpoint):
        counts.checkpoints += 1
        #expect(!unflushedData, "a checkpoint was written before the files it covers were flushed")
      case .renamed(manifest):
        counts.manifests += 1
        #expect(!unflushedData, "the manifest was written before the files it covers were flushed")
        manifestAwaitingFlush = true
      case .renamed(redoLog):
        redoLogAwaitingFlush = true
      case .renamed(let path):
        if path.contains("/index/") {
          #expect(
            !redoLogAwaitingFlush, "an index shard was written before its redo log was flushed")
        }
        unflushedData = true
      case .removed(checkpoint):
        #expect(
          !manifestAwaitingFlush, "the checkpoint was dropped before the manifest was flushed")
      case .removed:
        continue
      }
    }
    return counts
  }

  @Test func filesAreFlushedBeforeTheCheckpointOrManifestThatCoversThem() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
      print("skipped: strace is not installed (scripts/install-dependencies.sh installs it)")
      return
    }
    let work = try TemporaryDirectory("commit-order")
    let mirror = work.appending("content")
    // The initial sync over three pages (a checkpoint after each of the first two), then the delta.
    guard let initial = try Self.tracedSync(mirror, work, run: 1),
      let delta = try Self.tracedSync(mirror, work, run: 2)
    else { return }
    let first = Self.check(initial, mirror: mirror)
    #expect(first.checkpoints == 2 && first.manifests == 1)
    let second = Self.check(delta, mirror: mirror)
    #expect(second.manifests == 1)
    #expect(
      delta.contains(.renamed(mirror + "/.mirror/index-redo")), "the delta's index flush is logged")
  }
}
