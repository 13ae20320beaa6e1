#pragma once
// An upward include the room-order check must refuse.
#include "cluster/partition.h"
