func.func @f(%n: i64) -> i64 {
  func.return %n : i64
}
