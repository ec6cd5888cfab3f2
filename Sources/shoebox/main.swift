import ShoeboxCLI
ShoeboxCLI.main()
