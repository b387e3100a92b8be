import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

/// The order of flushes that makes a power loss harmless, read from the system calls of real
/// syncs (`strace`). Skipped, saying so, where `strace` cannot trace.
@Suite struct CommitOrderTests {
  /// One traced system call, with when it started and ended (seconds).
  struct Event: Equatable {
    enum Kind: Equatable {
      case flush
      case renamed(String)
      /// Bytes written straight to their file (a first sync's new items), not to a temporary file.
      case written(String)
      case removed(String)
    }
    var kind: Kind
    var start: Double
    var end: Double
  }

  /// Syncs `mirror` under strace and returns its file-system events in order of starting.
  static func tracedSync(_ mirror: String, _ work: TemporaryDirectory, run: Int) throws -> [Event]?
  {
    let log = work.appending("trace-\(run).log")
    let result = try CommandRunner().runShell(
      #"strace -f -qq -ttt -T -e trace=syncfs,rename,renameat,renameat2,unlink,unlinkat,write -y -o "$1" "$0" sync "$2" --source sample-space --checkpoint-every 1 --quiet"#,
      [log, mirror])
    guard result.status == 0 else {
      print("skipped: strace could not trace the sync here (\(result.error.prefix(200)))")
      return nil
    }
    // `PID START call(args) = result <DURATION>`; a call another thread interrupts is split into
    // `PID START call(args <unfinished ...>` and `PID TIME <... call resumed>) = result <DURATION>`.
    // `-y` prints paths with symbolic links resolved.
    let realMirror =
      URL(fileURLWithPath: work.path).resolvingSymlinksInPath().path
      + mirror.dropFirst(work.path.count)
    var events: [Event] = []
    var unfinished: [Substring: Int] = [:]  // pid: index in `events`
    for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 2)
      guard fields.count == 3, let time = Double(fields[1]) else { continue }
      let pid = fields[0]
      let call = fields[2]
      let duration =
        call.hasSuffix(">") ? Double(call.split(separator: "<").last?.dropLast() ?? "") : nil
      if call.hasPrefix("<... ") {
        if let index = unfinished.removeValue(forKey: pid) {
          events[index].end = events[index].start + (duration ?? time - events[index].start)
        }
        continue
      }
      let quoted = call.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map {
        String($0.element)
      }
      let kind: Event.Kind
      if call.hasPrefix("syncfs(") {
        kind = .flush
      } else if call.hasPrefix("rename"), quoted.count >= 2 {
        kind = .renamed(quoted[1])
      } else if call.hasPrefix("unlink"), let path = quoted.first {
        kind = .removed(path)
      } else if call.hasPrefix("write("), let path = Self.descriptorPath(call),
        path.hasPrefix(realMirror + "/"),
        !FileSystem.isTemporaryName(FileSystem.lastComponent(of: path))
      {
        kind = .written(mirror + path.dropFirst(realMirror.count))
      } else {
        continue
      }
      if call.hasSuffix("<unfinished ...>") { unfinished[pid] = events.count }
      events.append(Event(kind: kind, start: time, end: time + (duration ?? 0)))
    }
    return events
  }

  /// The path `strace -y` prints for a call's first argument, `write(7</a/b.json>, …`.
  static func descriptorPath(_ call: Substring) -> String? {
    guard let open = call.firstIndex(of: "<"), let close = call.firstIndex(of: ">"), open < close
    else { return nil }
    return String(call[call.index(after: open)..<close])
  }

  /// The ids of the items on each page of the sample space's initial sync, in page order.
  static func initialPages() throws -> [[String]] {
    try ["initial", "initial-p2", "initial-p3"].map { name in
      let bytes = try Array(
        Data(contentsOf: URL(fileURLWithPath: "sample-space/sync/\(name).json")))
      return (try JSONReader().read(bytes)["items"]?.arrayValue ?? []).compactMap {
        $0["sys"]?["id"]?.stringValue
      }
    }
  }

  /// Checks the commit protocol on one sync's events; returns what was seen, for the caller.
  ///
  /// - Parameter pages: The items of each page, when known: the n-th checkpoint covers the first
  ///   n pages, and must follow a flush that started after each of their files was in place.
  ///   (A first sync makes its commit points durable while it writes the next pages, so files
  ///   of later pages may be renamed while that flush runs.)
  static func check(_ events: [Event], mirror: String, pages: [[String]] = []) -> (
    checkpoints: Int, manifests: Int
  ) {
    let manifest = mirror + "/manifest.json"
    let checkpoint = mirror + "/.mirror/checkpoint.json"
    let redoLog = mirror + "/.mirror/index-redo"
    var unflushedData = false  // a file renamed or written into place since the last flush
    var manifestAwaitingFlush = false
    var redoLogAwaitingFlush = false
    var counts = (checkpoints: 0, manifests: 0)
    for event in events {
      switch event.kind {
      case .flush:
        unflushedData = false
        manifestAwaitingFlush = false
        redoLogAwaitingFlush = false
      case .renamed(checkpoint):
        counts.checkpoints += 1
        if pages.isEmpty {
          #expect(
            !unflushedData, "a checkpoint was written before the files it covers were flushed")
        } else {
          checkCheckpoint(event, covering: pages.prefix(counts.checkpoints).joined(), in: events)
        }
      case .renamed(manifest):
        counts.manifests += 1
        #expect(!unflushedData, "the manifest was written before the files it covers were flushed")
        manifestAwaitingFlush = true
      case .renamed(redoLog):
        redoLogAwaitingFlush = true
      case .renamed(let path), .written(let path):
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

  /// The flush that ended last before `checkpoint` was renamed started after every file of the
  /// items `covered` was renamed or written into place.
  static func checkCheckpoint(
    _ checkpoint: Event, covering covered: some Sequence<String>, in events: [Event]
  ) {
    let flush = events.filter { $0.kind == .flush && $0.end <= checkpoint.start }.max {
      $0.end < $1.end
    }
    guard let flush else {
      Issue.record("a checkpoint was written with no flush before it")
      return
    }
    var files = 0
    for id in covered {
      for event in events {
        let placed: String
        switch event.kind {
        case .renamed(let path), .written(let path): placed = path
        case .flush, .removed: continue
        }
        guard placed.contains("/\(id)/") || placed.hasSuffix("/\(id).json") else { continue }
        files += 1
        #expect(
          event.end <= flush.start,
          "\(placed) was put in place after the flush its checkpoint relies on had started")
      }
    }
    #expect(files > 0, "the checkpoint covers files")
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
    let first = Self.check(initial, mirror: mirror, pages: try Self.initialPages())
    #expect(first.checkpoints == 2 && first.manifests == 1)
    #expect(
      initial.contains { $0.kind == .written(mirror + "/entries/category/travel/en-US.json") },
      "a first sync writes new documents in place")
    let second = Self.check(delta, mirror: mirror)
    #expect(second.manifests == 1)
    #expect(
      delta.contains { $0.kind == .renamed(mirror + "/.mirror/index-redo") },
      "the delta's index flush is logged")
  }
}
