/* finpar's ParserC.h, replaced: see finpar_io.h. */
#include "finpar_io.h"
