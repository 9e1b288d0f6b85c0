import Dispatch
import Glibc
import PinpadControlCore
import PinpadCore
import PinpadSystem
import Synchronization

/// The crypt(3) checks of `DecisionCore` (its `firstMatch`; docs/protocol.md, "Codes
/// file: matching"): the candidates the tags and rules left are checked on every core
/// (one `PasswordHasher` each); the first in their order whose checks all pass wins.
final class CodeVerifier: @unchecked Sendable {
  /// Set once later by `adoptKey` when `hash` made the key beside the codes file after
  /// `serve` started (only between checks, on the calling thread).
  private(set) var key: CodeTagKey?
  /// One per worker; worker `w` alone uses `hashers[w]` (hence @unchecked Sendable).
  private let hashers: [PasswordHasher]

  init(key: CodeTagKey?, workers: Int = CodeVerifier.cores) {
    self.key = key
    hashers = (0..<max(1, workers)).map { _ in PasswordHasher() }
  }

  /// Starts using `key` (when there was none).
  func adoptKey(_ key: CodeTagKey) {
    if self.key == nil { self.key = key }
  }

  static var cores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

  /// The entry index of the first of `candidates` that `code` and/or `card` pass,
  /// nil when none does. Checks NUL-terminated copies of them, zeroed before returning.
  func firstMatch(
    _ candidates: [CodesLookup.Candidate], entries: [CodesFile.Entry],
    code: UnsafeBufferPointer<UInt8>?, card: UnsafeBufferPointer<UInt8>?
  ) -> Int? {
    let codeCopy = SecretCString(capacity: SecretDigits.capacity)
    let cardCopy = SecretCString(capacity: CodesLookup.maxCardLength)
    if let code { codeCopy.set(code) }
    if let card { cardCopy.set(card) }
    return firstMatch(candidates, entries: entries, code: codeCopy, card: cardCopy)
  }

  /// The entry index of the first candidate whose checks all pass. Workers take the
  /// candidates in turn; one found at position p stops the others from starting any
  /// after p.
  private func firstMatch(
    _ candidates: [CodesLookup.Candidate], entries: [CodesFile.Entry], code: SecretCString,
    card: SecretCString
  ) -> Int? {
    guard !candidates.isEmpty else { return nil }
    let best = Atomic<Int>(Int.max)
    let workers = min(hashers.count, candidates.count)
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      let hasher = hashers[worker]
      for position in stride(from: worker, to: candidates.count, by: workers) {
        if best.load(ordering: .relaxed) < position { return }
        let candidate = candidates[position]
        let entry = entries[candidate.index]
        let passed = candidate.checks.allSatisfy { check in
          switch check {
          case .pin: hasher.matches(code: code.pointer, hash: entry.pinHash ?? [])
          case .card: hasher.matches(code: card.pointer, hash: entry.cardHash ?? [])
          }
        }
        if passed {
          _ = best.min(position, ordering: .relaxed)
          return
        }
      }
    }
    let position = best.load(ordering: .relaxed)
    return position == Int.max ? nil : candidates[position].index
  }
}

/// A NUL-terminated copy of a secret for crypt(3), in its own buffer, zeroed on deinit.
final class SecretCString: @unchecked Sendable {
  let capacity: Int
  private let bytes: UnsafeMutablePointer<CChar>

  init(capacity: Int) {
    self.capacity = capacity
    bytes = .allocate(capacity: capacity + 1)
    ProcessSetup.lockPages(bytes, capacity + 1)
    bytes.initialize(repeating: 0, count: capacity + 1)
  }
  deinit {
    explicitZero(bytes, capacity + 1)
    bytes.deallocate()
  }

  /// Copies `source` (at most `capacity` bytes) and terminates it.
  func set(_ source: UnsafeBufferPointer<UInt8>) {
    let count = min(source.count, capacity)
    for i in 0..<count { bytes[i] = CChar(bitPattern: source[i]) }
    bytes[count] = 0
  }

  var pointer: UnsafePointer<CChar> { UnsafePointer(bytes) }
}
