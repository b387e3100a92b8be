import ContentfulMirror
import Foundation
import MirrorTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Kills the real executable with SIGKILL at random moments of an initial sync, a delta sync, an
/// export and a restore, then recovers as a user would and compares with an uninterrupted run.
///
/// Each test runs `CONTENTFUL_MIRROR_CRASH_TRIALS` trials (default 4); the seed is printed and
/// can be fixed with `CONTENTFUL_MIRROR_CRASH_SEED`, so a failing trial can be replayed.
@Suite(.serialized) struct CrashConsistencyTests {
  static let token = "CFPAT-crash-harness-0042"
  static let environment = ProcessInfo.processInfo.environment
  static let trials = Int(environment["CONTENTFUL_MIRROR_CRASH_TRIALS"] ?? "") ?? 4
  static let seed =
    UInt64(environment["CONTENTFUL_MIRROR_CRASH_SEED"] ?? "")
    ?? UInt64(Date().timeIntervalSince1970 * 1000)

  /// A space of 28 sync pages and a delta of 4 pages (30 changes, 10 deletions), with a commit
  /// point every 2 pages, served slowly enough
  /// (10 ms an answer) that a kill can land in any phase, and the uninterrupted results.
  final class Fixture: @unchecked Sendable {
    let server: SpaceServer
    let work: TemporaryDirectory
    let afterInitial: String
    let afterDelta: String
    let archive: String
    var initialSeconds = 0.0
    var deltaSeconds = 0.0
    var exportSeconds = 0.0
    var restoreSeconds = 0.0

    init() throws {
      var space = SyntheticSpace(entries: 240, assets: 40, locales: 4, seed: 3)
      server = try SpaceServer(space: &space, deltaChanges: 30, deltaDeletions: 10, pageSize: 10)
      server.delayEveryResponse(by: 0.01)
      work = try TemporaryDirectory("crash")
      afterInitial = work.appending("reference-initial")
      afterDelta = work.appending("reference-delta")
      archive = work.appending("reference.tar.zst")
    }

    func syncArguments(_ mirror: String, unflushed: Bool = false) -> [String] {
      [
        "sync", mirror, "--space", SyntheticSpace.spaceID, "--host", server.baseURL,
        "--checkpoint-every", "2", "--quiet",
      ] + (unflushed ? ["--durability", "none"] : [])
    }

    func prepare(_ runner: CommandRunner) throws {
      initialSeconds = try timed { try runner.run(syncArguments(afterInitial)) }
      try FileManager.default.copyItem(atPath: afterInitial, toPath: afterDelta)
      deltaSeconds = try timed { try runner.run(syncArguments(afterDelta)) }
      exportSeconds = try timed { try runner.run(["export", afterDelta, "-o", archive]) }
      restoreSeconds = try timed {
        try runner.run(["restore", archive, work.appending("reference-restore")])
      }
    }

    private func timed(_ body: () throws -> CommandRunner.Result) throws -> Double {
      let start = Date()
      let result = try body()
      #expect(result.status == 0, "reference run: \(result.error)")
      return Date().timeIntervalSince(start)
    }
  }

  let runner: CommandRunner = {
    var runner = CommandRunner()
    runner.environment["CONTENTFUL_ACCESS_TOKEN"] = token
    return runner
  }()

  /// Runs `arguments` and SIGKILLs it after a random delay in [0, `window`] seconds.
  /// - Returns: The delay, and whether the process was still running when killed.
  func runAndKill(_ arguments: [String], within window: Double, random: inout SplitMix64)
    throws -> (delay: Double, killed: Bool)
  {
    let delay = Double(random.next() % 10_000) / 10_000 * window
    let process = try runner.start(arguments)
    usleep(useconds_t(delay * 1_000_000))
    let killed = kill(process.processIdentifier, SIGKILL) == 0 && process.isRunning
    process.waitUntilExit()
    return (delay, killed && process.terminationReason == .uncaughtSignal)
  }

  /// Files a writer left half-done: temporary files and the writing marker.
  static func leftovers(in root: String) -> [String] {
    let tree = DirectoryTree(root: root)
    return tree.files.keys.filter {
      let name = $0.split(separator: "/").last.map(String.init) ?? $0
      return (name.hasPrefix(".") && name.contains(".tmp")) || $0 == ".mirror/writing"
    }.sorted()
  }

  /// Whether nobody holds the mirror's lock.
  static func lockIsFree(_ root: String) -> Bool {
    let fd = open(root + "/.mirror/lock", O_RDWR)
    guard fd >= 0 else { return true }
    defer { close(fd) }
    return flock(fd, LOCK_EX | LOCK_NB) == 0
  }

  static func syncToken(_ root: String) -> String? {
    guard let data = FileManager.default.contents(atPath: root + "/manifest.json") else {
      return nil
    }
    return (try? JSONReader().read(Array(data)))?["syncToken"]?.stringValue
  }

  /// The fixture's directory: the fixture lives as long as the process, so it is removed at exit.
  nonisolated(unsafe) static var fixtureDirectory: String?

  static let fixture: Result<Fixture, any Error> = Result {
    let fixture = try Fixture()
    fixtureDirectory = fixture.work.path
    atexit {
      if let path = CrashConsistencyTests.fixtureDirectory {
        try? FileManager.default.removeItem(atPath: path)
      }
    }
    var runner = CommandRunner()
    runner.environment["CONTENTFUL_ACCESS_TOKEN"] = token
    try fixture.prepare(runner)
    return fixture
  }

  /// Syncs `mirror` until it holds the delta's token, checking the state after each complete
  /// sync against the uninterrupted reference for that token.
  func recoverBySyncing(
    _ mirror: String, _ fixture: Fixture, trial: String, unflushed: Bool = false
  ) throws {
    for _ in 0..<3 {
      let result = try runner.run(fixture.syncArguments(mirror, unflushed: unflushed))
      #expect(result.status == 0, "\(trial): recovering sync failed: \(result.error)")
      guard result.status == 0 else { return }
      let token = Self.syncToken(mirror)
      let reference = token == "s1" ? fixture.afterInitial : fixture.afterDelta
      let found = DirectoryTree.mirror(at: mirror)
      let expected = DirectoryTree.mirror(at: reference)
      let differences = found.differences(from: expected)
      #expect(
        differences == [],
        "\(trial): the mirror at \(token ?? "-") differs from the uninterrupted one; first: \(differences.first.map { Self.describe($0, found, expected) } ?? "")"
      )
      #expect(Self.leftovers(in: mirror) == [], "\(trial): left behind after recovery")
      if token == "s2" { return }
    }
    Issue.record("\(trial): three syncs did not reach the delta's token")
  }

  static func describe(_ path: String, _ found: DirectoryTree, _ expected: DirectoryTree) -> String
  {
    func text(_ bytes: [UInt8]?) -> String {
      bytes.map { String(decoding: $0.prefix(600), as: UTF8.self) } ?? "(absent)"
    }
    return
      "\(path)\n--- found:\n\(text(found.files[path]))\n--- expected:\n\(text(expected.files[path]))"
  }

  /// Runs `Self.trials` trials: each starts the command `arguments` gives, SIGKILLs it after a
  /// random delay in [0, `window`] seconds, and hands the trial and its label to `recover`.
  func runTrials(
    _ phase: String, salt: UInt64, within window: Double, arguments: (Int) throws -> [String],
    recover: (Int, String) throws -> Void
  ) throws {
    var random = SplitMix64(seed: Self.seed &+ salt)
    var interrupted = 0
    for trial in 0..<Self.trials {
      let (delay, killed) = try runAndKill(try arguments(trial), within: window, random: &random)
      if killed { interrupted += 1 }
      try recover(trial, "\(phase) trial \(trial) (seed \(Self.seed), killed after \(delay) s)")
    }
    print(
      "crash harness: \(phase), \(Self.trials) trials, \(interrupted) killed mid-run, seed \(Self.seed)"
    )
  }

  @Test func aSyncKilledDuringItsInitialSyncRecoversToTheUninterruptedMirror() throws {
    let fixture = try Self.fixture.get()
    try runTrials("initial sync", salt: 0, within: fixture.initialSeconds) { trial in
      fixture.syncArguments(fixture.work.appending("initial-\(trial)"))
    } recover: { trial, label in
      let mirror = fixture.work.appending("initial-\(trial)")
      #expect(Self.lockIsFree(mirror), "\(label): the lock is still held")
      try recoverBySyncing(mirror, fixture, trial: label)
      try? FileManager.default.removeItem(atPath: mirror)
    }
  }

  @Test func aSyncKilledDuringADeltaRecoversToTheUninterruptedMirror() throws {
    let fixture = try Self.fixture.get()
    try runTrials("delta sync", salt: 1, within: fixture.deltaSeconds) { trial in
      let mirror = fixture.work.appending("delta-\(trial)")
      try FileManager.default.copyItem(atPath: fixture.afterInitial, toPath: mirror)
      return fixture.syncArguments(mirror)
    } recover: { trial, label in
      let mirror = fixture.work.appending("delta-\(trial)")
      #expect(Self.lockIsFree(mirror), "\(label): the lock is still held")
      #expect(["s1", "s2"].contains(Self.syncToken(mirror)), "\(label): manifest lost")
      try recoverBySyncing(mirror, fixture, trial: label)
      try? FileManager.default.removeItem(atPath: mirror)
    }
  }

  @Test func aSyncWithoutFlushesKilledAnywhereRecoversToTheUninterruptedMirror() throws {
    // `--durability none` drops the flushes, not the order of the commit points: a killed
    // process leaves its writes in the page cache, so it recovers like a flushing one.
    let fixture = try Self.fixture.get()
    try runTrials("unflushed initial sync", salt: 4, within: fixture.initialSeconds) { trial in
      fixture.syncArguments(fixture.work.appending("unflushed-initial-\(trial)"), unflushed: true)
    } recover: { trial, label in
      let mirror = fixture.work.appending("unflushed-initial-\(trial)")
      try recoverBySyncing(mirror, fixture, trial: label, unflushed: true)
      try? FileManager.default.removeItem(atPath: mirror)
    }
    try runTrials("unflushed delta sync", salt: 5, within: fixture.deltaSeconds) { trial in
      let mirror = fixture.work.appending("unflushed-delta-\(trial)")
      try FileManager.default.copyItem(atPath: fixture.afterInitial, toPath: mirror)
      return fixture.syncArguments(mirror, unflushed: true)
    } recover: { trial, label in
      let mirror = fixture.work.appending("unflushed-delta-\(trial)")
      #expect(["s1", "s2"].contains(Self.syncToken(mirror)), "\(label): manifest lost")
      try recoverBySyncing(mirror, fixture, trial: label, unflushed: true)
      try? FileManager.default.removeItem(atPath: mirror)
    }
  }

  @Test func anExportKilledAnywhereLeavesNoArchiveOrAWholeOneAndARerunIsIdentical() throws {
    let fixture = try Self.fixture.get()
    let reference = FileManager.default.contents(atPath: fixture.archive)
    func directory(_ trial: Int) -> String { fixture.work.appending("export-\(trial)") }
    func output(_ trial: Int) -> String { directory(trial) + "/mirror.tar.zst" }
    try runTrials("export", salt: 2, within: fixture.exportSeconds) { trial in
      try FileManager.default.createDirectory(
        atPath: directory(trial), withIntermediateDirectories: true)
      return ["export", fixture.afterDelta, "-o", output(trial)]
    } recover: { trial, label in
      let partial = FileManager.default.contents(atPath: output(trial))
      #expect(partial == nil || partial == reference, "\(label): a partial archive is in place")
      #expect(Self.lockIsFree(fixture.afterDelta), "\(label): the lock is still held")
      let rerun = try runner.run(["export", fixture.afterDelta, "-o", output(trial)])
      #expect(rerun.status == 0, "\(label): \(rerun.error)")
      #expect(FileManager.default.contents(atPath: output(trial)) == reference, "\(label): differs")
      let names = try FileManager.default.contentsOfDirectory(atPath: directory(trial))
      #expect(names == ["mirror.tar.zst"], "\(label): left behind: \(names)")
    }
  }

  @Test func aRestoreKilledAnywhereIsRepairedByRestoringAgainAndSyncsOn() throws {
    let fixture = try Self.fixture.get()
    try runTrials("restore", salt: 3, within: fixture.restoreSeconds) { trial in
      ["restore", fixture.archive, fixture.work.appending("restore-\(trial)")]
    } recover: { trial, label in
      let mirror = fixture.work.appending("restore-\(trial)")
      #expect(Self.lockIsFree(mirror), "\(label): the lock is still held")
      let again = try runner.run(["restore", fixture.archive, mirror, "--force"])
      #expect(again.status == 0, "\(label): \(again.error)")
      #expect(Self.leftovers(in: mirror) == [], "\(label): left behind after the restore")
      try recoverBySyncing(mirror, fixture, trial: label)
      try? FileManager.default.removeItem(atPath: mirror)
    }
  }
}
