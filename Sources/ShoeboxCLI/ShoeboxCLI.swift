import ShoeboxKit
public enum ShoeboxCLI { public static func main() { print(Shoebox.version) } }
