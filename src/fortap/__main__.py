from fortap.cli import main

main()
