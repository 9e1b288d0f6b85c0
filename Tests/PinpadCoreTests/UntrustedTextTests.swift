import PinpadCore
import Testing

/// What a hostile controller could put in a verdict message to drive a terminal.
private let hostile =
  "\u{1B}]0;owned\u{07}A\u{1B}[2JB\u{9B}31mC\u{202E}D\u{200B}E\r\nF\u{7F}G\u{0}H\tI\u{2028}J"

@Suite("Untrusted text")
struct UntrustedTextTests {
  @Test("control, C1 and format characters are removed; tab, CR and LF become spaces")
  func sanitised() {
    #expect(UntrustedText.sanitized(hostile) == "]0;ownedA[2JB31mCDE  FGH IJ")
  }

  // Built outside the @Test attribute: Swift 6.0.3 crashes on a closure in its arguments.
  static let controls: [Unicode.Scalar] =
    Array(0...0x9F).map { Unicode.Scalar($0)! } + [
      "\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}",
      "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}", "\u{061C}", "\u{FEFF}", "\u{2060}",
      "\u{2029}",
    ]

  @Test("nothing that can drive a terminal or reorder text survives", arguments: controls)
  func noControlSurvives(scalar: Unicode.Scalar) {
    let out = UntrustedText.sanitized("x" + String(scalar) + "y")
    let isPrintableASCII = (0x20...0x7E).contains(scalar.value)
    #expect(out.unicodeScalars.contains(scalar) == isPrintableASCII, "U+\(scalar.value)")
  }

  @Test("a message over 200 bytes is cut to 200 on a character boundary")
  func cutAt200Bytes() {
    #expect(UntrustedText.sanitized(String(repeating: "a", count: 500)).utf8.count == 200)
    // "é" is 2 bytes: 199 "a" then "é" would be 201, so the é goes whole.
    let cut = UntrustedText.sanitized(String(repeating: "a", count: 199) + "é")
    #expect(cut == String(repeating: "a", count: 199))
    // A flag is one character of 8 bytes: never split into its scalars.
    let flags = UntrustedText.sanitized(String(repeating: "🇩🇪", count: 30))
    #expect(flags == String(repeating: "🇩🇪", count: 25))
    #expect(UntrustedText.sanitized("Welcome, Ana") == "Welcome, Ana")
  }

  @Test("fitting a line keeps short text and cuts long text with an ellipsis")
  func fitted() {
    #expect(UntrustedText.fitted("Door B", columns: 10) == "Door B")
    #expect(UntrustedText.fitted("0123456789", columns: 10) == "0123456789")
    #expect(UntrustedText.fitted("0123456789A", columns: 10) == "012345678\u{2026}")
    #expect(UntrustedText.fitted("abc", columns: 0) == "")
  }

  @Test("escaping writes control characters visibly and leaves other text alone")
  func escaping() {
    #expect(
      UntrustedText.escapingControls("a\r\u{7}\u{1B}[2J\u{9B}\tb") == #"a\r\x07\x1b[2J\x9b\tb"#)
    #expect(UntrustedText.escapingControls("x\u{202E}y") == #"x\u{202e}y"#)
    #expect(UntrustedText.escapingControls("Tür 2: ok") == "Tür 2: ok")
  }

  @Test("a configuration error never prints a raw control byte from the file")
  func configErrorEscapes() throws {
    // (Swift 6.0's #expect(throws:) returns nothing: the error is caught by hand.)
    var caught: ConfigError?
    do {
      _ = try ConfigParser.parse([
        ConfigSource(path: "evil.conf", text: "[Entry]\nPrompt\u{7}\u{1B}[2J=x\r\n")
      ])
    } catch {
      caught = error
    }
    let line = try #require(caught).description
    #expect(line.hasPrefix("evil.conf:2: "))
    #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
    #expect(line.contains(#"\x07\x1b[2J"#))
  }

  @Test("a verdict message is sanitised and cut where it enters, the verdict still taken")
  func verdictMessageEnters() {
    let long = String(repeating: "m", count: 500)
    let line =
      #"{"type":"verdict","id":"a-1","result":"denied","message":"\u001b]0;t\u0007\u009b2J\u202e"#
      + long + #""}"#
    guard
      case .success(.verdict(let id, let granted, let message, _, _)) = ClientRequest.parse(
        Array(line.utf8))
    else {
      Issue.record("not parsed as a verdict")
      return
    }
    #expect(id == "a-1")
    #expect(!granted)
    let text = message ?? ""
    #expect(text.utf8.count == 200)
    #expect(text.hasPrefix("]0;t2J" + "mmm"))
  }

  @Test("the console cuts a long message to the terminal's width with an ellipsis")
  func consoleCutsToWidth() {
    var model = ScreenModel()
    model.phase = .denied(message: String(repeating: "x", count: 200), attemptsLeft: 2)
    for columns in [40, 80, 132] {
      let frame = ConsoleRenderer.frame(model, columns: columns)
      let detail = frame.split(separator: "\r\n").first { $0.contains("xxx") }.map(String.init)
      #expect(detail?.hasSuffix("\u{2026}") == true)
      #expect(detail.map { $0.count <= columns } == true, "\(columns): \(detail ?? "-")")
    }
  }

  @Test("the console strips control characters even from texts that skipped the parser")
  func consoleStripsControls() {
    var model = ScreenModel()
    model.prompt = "PIN\u{1B}]0;x\u{7}"
    model.phase = .granted(message: "Hi\u{9B}2J\u{202E}")
    let frame = ConsoleRenderer.frame(model)
    #expect(!frame.unicodeScalars.contains { [0x07, 0x9B, 0x202E].contains($0.value) })
    #expect(!frame.contains("\u{1B}]"))
  }
}
