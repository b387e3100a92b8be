import ContentfulMirror
import Foundation
import MirrorTestSupport
import Testing

/// A sync that runs out of disk space, on a small tmpfs mounted in a private mount namespace
/// (`unshare -rm`). Skipped, saying so, where the environment does not allow that mount.
@Suite struct DiskFullTests {
  /// Free space left on the full disk before the delta, in KiB: none, then enough for part of
  /// it (its 40 new entries need about 800 KiB), then enough for all of it.
  static let headroom = [0, 40, 160, 320, 560, 2000]
  static let newEntries = 40

  /// Runs inside the namespace: mounts the tmpfs, syncs the sample space once, then for each
  /// headroom fills the disk, runs the delta, copies the result out, frees the disk and syncs
  /// again.
  static let script = #"""
    set -u
    cli="$0"; root="$1"; out="$2"; space="$3"; shift 3
    mount -t tmpfs -o size=4m tmpfs "$root" || exit 90
    "$cli" sync "$root/content" --source "$space" --quiet || exit 91
    cp -a "$root/content" "$out/before"
    for kib in "$@"; do
      rm -rf "$root/content"; cp -a "$out/before" "$root/content"
      dd if=/dev/zero of="$root/filler" bs=4096 2>/dev/null
      truncate -s "-${kib}K" "$root/filler" 2>/dev/null || rm -f "$root/filler"
      "$cli" sync "$root/content" >/dev/null 2>"$out/$kib.err"; echo $? >"$out/$kib.status"
      cp -a "$root/content" "$out/$kib.failed"
      rm "$root/filler"
      "$cli" sync "$root/content" >/dev/null 2>"$out/$kib.recovery.err"
      echo $? >"$out/$kib.recovery.status"
      cp -a "$root/content" "$out/$kib.recovered"
    done
    """#

  static func read(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(
      in: .whitespacesAndNewlines)
      ?? ""
  }

  /// The sample space, with `newEntries` more new posts in its delta.
  static func recordSpaceWithALargerDelta(at path: String) throws {
    try RepositoryPaths.copySampleSpace(to: path)
    let deltaPath = path + "/sync/delta-1.json"
    var delta = try #require(
      try JSONReader().read(Array(try Data(contentsOf: URL(fileURLWithPath: deltaPath))))
        .objectValue)
    var items = try #require(delta["items"]?.arrayValue)
    let template = try #require(items.first?.objectValue)
    for index in 0..<newEntries {
      var item = template
      var sys = try #require(item["sys"]?.objectValue)
      sys["id"] = .string("filler-post-\(index)")
      item["sys"] = .object(sys)
      items.append(.object(item))
    }
    delta["items"] = .array(items)
    try Data(CanonicalJSON.encode(.object(delta))).write(to: URL(fileURLWithPath: deltaPath))
  }

  @Test func aFullDiskFailsClearlyAndLeavesTheCommittedMirrorThenRecovers() throws {
    let work = try TemporaryDirectory("disk-full")
    let root = work.appending("tmpfs")
    let out = work.appending("out")
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let runner = CommandRunner()
    let space = work.appending("space")
    try Self.recordSpaceWithALargerDelta(at: space)
    let reference = work.appending("reference")
    for _ in 0..<2 {
      #expect(try runner.run(["sync", reference, "--source", space, "--quiet"]).status == 0)
    }
    let probe = try runner.runShell(
      #"unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs "$0"' "$1""#, [root])
    guard probe.status == 0 else {
      print("skipped: cannot mount a tmpfs in a private namespace here (\(probe.error))")
      return
    }
    let sizes = Self.headroom.map(String.init).joined(separator: " ")
    let run = try runner.runShell(
      #"exec unshare -rm sh -c "$1" "$0" "$2" "$3" "$4" "# + sizes, [Self.script, root, out, space])
    #expect(run.status == 0, "the namespace script failed: \(run.status) \(run.error)")

    let before = DirectoryTree.mirror(at: out + "/before")
    let golden = DirectoryTree.mirror(at: reference)
    var failures = 0
    for kib in Self.headroom {
      let label = "\(kib) KiB free"
      let status = Self.read(out + "/\(kib).status")
      let message = Self.read(out + "/\(kib).err")
      if status == "1" {
        failures += 1
        #expect(message.contains("No space left on device"), "\(label): \(message)")
        #expect(message.contains("free some space"), "\(label): \(message)")
      } else {
        #expect(status == "0", "\(label): exit \(status): \(message)")
      }
      let failed = DirectoryTree.mirror(at: out + "/\(kib).failed")
      if status == "1" {
        // The committed state did not move, and every file is whole: as before, or as after.
        #expect(failed.files["manifest.json"] == before.files["manifest.json"], "\(label)")
        for (path, bytes) in failed.files {
          #expect(
            bytes == before.files[path] || bytes == golden.files[path],
            "\(label): \(path) is neither the old nor the new version")
        }
      }
      #expect(
        failed.files.keys.filter { $0.hasSuffix(".tmp") }.isEmpty, "\(label): temporary files")
      #expect(Self.read(out + "/\(kib).recovery.status") == "0", "\(label): recovery failed")
      let recovered = DirectoryTree.mirror(at: out + "/\(kib).recovered")
      #expect(recovered.differences(from: golden) == [], "\(label): recovery differs")
    }
    #expect(failures >= 3, "the disk rarely filled up: the test did not test")
    print("disk full: \(failures) of \(Self.headroom.count) headroom settings failed the delta")
  }
}
