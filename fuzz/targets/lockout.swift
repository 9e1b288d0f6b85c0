// Fuzz target: the lockout state file (STATE_DIR/lockout, SPEC §3).
//
// Whatever the file holds, parsing never unlocks a keypad by accident: a line that
// does not parse locks its keypad (or "*"). What the daemon writes back parses to a
// state that renders to the same text again.
import PinpadCore

let nowMono = Instant(nanoseconds: 5_000_000_000_000)
let nowWallMs: Int64 = 1_700_000_000_000
let conservative = Duration.seconds(30)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLockout(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let parsed = LockoutStore.parse(
    text(data, size), nowMono: nowMono, nowWallMs: nowWallMs, conservative: conservative)
  for name in parsed.guessed {
    let state = parsed.states[name]
    require(state?.lockedUntil.map { $0 >= nowMono + conservative } ?? false, "\(name) unlocked")
  }
  require(parsed.problems.count >= parsed.guessed.count, "a guess without a problem")
  for (_, state) in parsed.states {
    require(state.failures >= 0 && state.level >= 0, "negative counts")
  }
  let rendered = LockoutStore.render(parsed.states, nowMono: nowMono, nowWallMs: nowWallMs)
  let again = LockoutStore.parse(
    rendered, nowMono: nowMono, nowWallMs: nowWallMs, conservative: conservative)
  require(again.problems.isEmpty, "the written file has problems: \(again.problems)")
  require(
    LockoutStore.render(again.states, nowMono: nowMono, nowWallMs: nowWallMs) == rendered,
    "render/parse/render differs")
  return 0
}
