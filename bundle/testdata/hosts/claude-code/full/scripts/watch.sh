#!/bin/sh
echo watching
