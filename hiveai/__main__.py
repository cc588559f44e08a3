from hiveai.cli import main

main()
