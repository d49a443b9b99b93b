#!/bin/sh
# A first tour of the command line, with no hardware: simulate games, look at the rulesets
# and the launcher profiles, then fire the GPIO launcher on gpiozero's mock pins and the
# emulated Pico. Every command takes --launcher; without it $UNO_ATTACK_LAUNCHER, then sim://.
set -eu

uno-attack simulate --ruleset attack --players 4 --games 5 --seed 7 --bots random,greedy
uno-attack rules list
uno-attack profile list
uno-attack launcher fire --launcher "gpio://?mock=1" --cards 30 --presses 3 --seed 2
uno-attack launcher test --launcher "gpio://?mock=1&cards=10&button=none"
UNO_ATTACK_LAUNCHER="emu://?fast=1&seed=3" uno-attack launcher fire --cards 20 --presses 3
