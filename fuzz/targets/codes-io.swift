// The two file-system names CodesFile.swift uses beside its parser, for the codes
// fuzz target only (it calls CodesFile.parse, never these). Goes away once the parser
// lives in PinpadCore.
struct FileStatus: Equatable {
  var mode: UInt32
}

struct FuzzIOError: Error {
  var errno: Int32
}

enum FileSystem {
  static func status(_ path: String) throws(FuzzIOError) -> FileStatus {
    throw FuzzIOError(errno: 2)
  }
  static func read(_ path: String, limit: Int) throws(FuzzIOError) -> [UInt8] {
    throw FuzzIOError(errno: 2)
  }
}
